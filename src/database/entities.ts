import { ApiToken } from '../modules/tokens/domain/api-token.entity.js';

/** Every entity the ORM maps. */
export const entities = [ApiToken];
