/** Largest request body, as sent and (intake) after decompression: the Zipkin reporter's messageMaxBytes. */
export const MAX_BODY_BYTES = 5_242_880;
