/** The tokens module's public surface: its facade, its events and the intake guard. */

export { TokensFacade, type AuthenticatedToken } from './tokens.facade.js';

export interface TokenCreated {
  tokenId: string;
  name: string;
  debug: boolean;
}

export interface TokenRevoked {
  tokenId: string;
}

export interface TokenDebugChanged {
  tokenId: string;
  debug: boolean;
  /** ISO time the debug window closes, null when debug is off. */
  debugExpiresAt: string | null;
}

export interface TokensEvents {
  TokenCreated: TokenCreated;
  TokenRevoked: TokenRevoked;
  TokenDebugChanged: TokenDebugChanged;
}

export { TokenNotFoundError } from './domain/token.errors.js';
export { ApiTokenGuard, CurrentToken } from './http/api-token.guard.js';
export { TokensModule } from './tokens.module.js';
