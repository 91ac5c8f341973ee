/** One HTTP attempt of a delivery: what came back, or why nothing did. */
export interface AttemptResult {
  /** The answer's status, or null when none came (timeout, connection refused, reset …). */
  statusCode: number | null;
  /** Why the attempt did not deliver; null for a 2xx. */
  error: string | null;
  /** The attempt was cut short because the service is shutting down. */
  interrupted: boolean;
}

/**
 * POSTs one signed body. The timeout covers the whole attempt up to the answer's headers; the
 * answer's body is not read. Redirects are not followed (a 3xx is a failed attempt).
 */
export async function postWebhook(url: string, body: string, headers: Record<string, string>, timeoutMs: number, shutdown: AbortSignal): Promise<AttemptResult> {
  const timeout = AbortSignal.timeout(timeoutMs);
  try {
    const response = await fetch(url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.any([timeout, shutdown]) });
    await response.body?.cancel().catch(() => undefined);
    const ok = response.status >= 200 && response.status <= 299;
    return { statusCode: response.status, error: ok ? null : `answered HTTP ${response.status}`, interrupted: false };
  } catch (error) {
    if (shutdown.aborted) return { statusCode: null, error: 'interrupted: the service was shutting down', interrupted: true };
    if (timeout.aborted) return { statusCode: null, error: `no answer within ${timeoutMs} ms`, interrupted: false };
    return { statusCode: null, error: describeNetworkError(error), interrupted: false };
  }
}

/** fetch wraps the cause (ECONNREFUSED, ENOTFOUND, a TLS error) in "fetch failed". */
function describeNetworkError(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  const message = typeof cause?.message === 'string' ? cause.message : error instanceof Error ? error.message : String(error);
  const code = typeof cause?.code === 'string' ? cause.code : null;
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}
