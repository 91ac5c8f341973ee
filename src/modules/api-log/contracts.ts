/** The API log module's public surface. It stores the calls of tokens in debug mode (issue: API log). */

// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface ApiLogEvents {}
