import { rm } from 'node:fs/promises';

export default async function globalTeardown() {
  await globalThis.__EMBEDDED_PG__?.stop();
  if (globalThis.__EMBEDDED_PG_DIR__) await rm(globalThis.__EMBEDDED_PG_DIR__, { recursive: true, force: true });
}
