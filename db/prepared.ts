import type postgres from 'postgres';

type Unsafe = postgres.Sql['unsafe'];

/** `sql` with every `unsafe` call, inside its transactions and savepoints too, passed through `wrap`. */
export function withUnsafe<T extends postgres.Sql>(sql: T, wrap: (unsafe: Unsafe) => Unsafe): T {
  return new Proxy(sql, {
    get(target, property, receiver) {
      if (property === 'unsafe') return wrap(target.unsafe.bind(target));
      if (property === 'begin' || property === 'savepoint') {
        const method = Reflect.get(target, property) as (...args: unknown[]) => unknown;
        return (...args: unknown[]) => {
          const callback = args.pop() as (inner: postgres.Sql) => unknown;
          return method.call(target, ...args, (inner: postgres.Sql) => callback(withUnsafe(inner, wrap)));
        };
      }
      return Reflect.get(target, property, receiver);
    },
  });
}

/**
 * drizzle sends each query through `unsafe`, unprepared, and postgres.js then asks the server to
 * describe every parameterized query before running it: two round trips per query. This client
 * prepares them as named statements, kept per connection, when the client's `prepare` setting is
 * on (the default; `?prepare=false` in DATABASE_URL turns it off for a pooler that cannot keep
 * them), so a query seen before on a connection is one round trip, and queries sent together pipeline.
 */
export function preparingClient<T extends postgres.Sql>(sql: T): T {
  const prepare = sql.options.prepare !== false;
  return withUnsafe(sql, (unsafe) => (query, params, options) => unsafe(query, params, { ...options, prepare }));
}
