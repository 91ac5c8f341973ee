import { createParamDecorator, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { readBearer, UnauthorizedError } from '../../../shared/auth/bearer.js';
import { TokensFacade, type AuthenticatedToken } from '../tokens.facade.js';

interface RequestWithToken {
  headers: Record<string, string | string[] | undefined>;
  apiToken?: AuthenticatedToken;
}

/** Intake routes: resolves `Authorization: Bearer <API token>` to a live token. */
@Injectable()
export class ApiTokenGuard implements CanActivate {
  constructor(private readonly tokens: TokensFacade) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<RequestWithToken>();
    const token = await this.tokens.authenticate(readBearer(request.headers.authorization));
    if (!token) throw new UnauthorizedError('TOKEN_INVALID', 'the API token is unknown or revoked');
    request.apiToken = token;
    return true;
  }
}

/** The token resolved by ApiTokenGuard. */
export const CurrentToken = createParamDecorator((_: unknown, context: ExecutionContext): AuthenticatedToken => {
  const token = context.switchToHttp().getRequest<RequestWithToken>().apiToken;
  if (!token) throw new Error('CurrentToken used on a route without ApiTokenGuard');
  return token;
});
