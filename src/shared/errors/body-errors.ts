import { DomainError } from './domain-error.js';

/** A body over the size limit, as sent or after decompression; answered 413. */
export class PayloadTooLargeError extends DomainError {
  readonly kind = 'too_large';
  readonly code = 'PAYLOAD_TOO_LARGE';
}

/** A Content-Type or Content-Encoding the route does not take; answered 415. */
export class UnsupportedMediaTypeError extends DomainError {
  readonly kind = 'unsupported_media_type';
  readonly code = 'UNSUPPORTED_MEDIA_TYPE';
}
