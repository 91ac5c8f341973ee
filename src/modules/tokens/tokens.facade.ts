/** The caller of an intake route, as resolved from its bearer token. */
export interface AuthenticatedToken {
  id: string;
  name: string;
  /** Debug (API log) is active right now. */
  debug: boolean;
  rateLimitPerMinute: number | null;
}

export abstract class TokensFacade {
  /** The live (not revoked) token whose secret this is, or null. */
  abstract authenticate(secret: string): Promise<AuthenticatedToken | null>;
  /** Throws TokenNotFoundError when no live token has this id. */
  abstract assertExists(tokenId: string): Promise<void>;
}
