import type postgres from 'postgres';

/**
 * drizzle sends each query through `unsafe`, unprepared, and postgres.js then asks the server to
 * describe every parameterized query before running it: two round trips per query. This client
 * prepares them as named statements, kept per connection, when the client's `prepare` setting is
 * on (the default; `?prepare=false` in DATABASE_URL turns it off for a pooler that cannot keep
 * them), so a query seen before on a connection is one round trip, and queries sent together pipeline.
 */
export function preparingClient<T extends postgres.Sql>(sql: T, prepare = sql.options.prepare !== false): T {
  return new Proxy(sql, {
    get(target, property, receiver) {
      if (property === 'unsafe') {
        return (query: string, params?: postgres.ParameterOrJSON<never>[], options?: postgres.UnsafeQueryOptions) => target.unsafe(query, params, { ...options, prepare });
      }
      if (property === 'begin' || property === 'savepoint') {
        const method = Reflect.get(target, property) as (...args: unknown[]) => unknown;
        return (...args: unknown[]) => {
          const callback = args.pop() as (inner: postgres.Sql) => unknown;
          return method.call(target, ...args, (inner: postgres.Sql) => callback(preparingClient(inner, prepare)));
        };
      }
      return Reflect.get(target, property, receiver);
    },
  });
}
