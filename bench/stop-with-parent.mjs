// Stops a bench server (closing it first) on SIGTERM or SIGINT, and when the bench that started it
// goes away: its stdin is a pipe from the bench, which closes when the bench exits.
export function stopWithParent(close) {
  const stop = async () => {
    await close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
  process.stdin.on('end', () => void stop());
  process.stdin.resume();
}
