/** What the HTTP layer reports for each answered intake call. */
export abstract class MetricsFacade {
  /** One answered request; `route` is the route pattern (`/v1/trace`), not the URL. */
  abstract observeHttp(method: string, route: string, statusCode: number, seconds: number): void;
}
