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

/** A debug window closed by itself; published once, by the instance whose job switched it off. */
export interface TokenDebugExpired {
  tokenId: string;
  /** ISO time the window closed. */
  debugExpiredAt: string;
}

export interface TokensEvents {
  TokenCreated: TokenCreated;
  TokenRevoked: TokenRevoked;
  TokenDebugChanged: TokenDebugChanged;
  TokenDebugExpired: TokenDebugExpired;
}

export { TokenNotFoundError } from './domain/token.errors.js';
export { ApiTokenGuard, CurrentToken } from './http/api-token.guard.js';
export { TokensModule } from './tokens.module.js';
