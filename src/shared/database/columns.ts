/** Rows as one array per column: the bind parameters of `unnest($1::type[], $2::type[], …)`, many rows in one statement. */
export function columnsOf(rows: readonly (readonly unknown[])[], width: number): unknown[][] {
  const columns: unknown[][] = Array.from({ length: width }, () => []);
  for (const row of rows) row.forEach((value, c) => columns[c].push(value));
  return columns;
}
