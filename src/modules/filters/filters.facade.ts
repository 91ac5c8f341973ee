export abstract class FiltersFacade {
  /** Throws FilterNotFoundError for an unknown id. */
  abstract assertExists(filterId: string): Promise<void>;
}
