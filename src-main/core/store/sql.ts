/**
 * The only way SQL is written in Gatehouse: a tagged template whose interpolations are always
 * bound parameters, never spliced text. Fragments made by `sql` nest; `sql.join` builds lists.
 *
 *   sql`SELECT * FROM session WHERE id = ${id} AND status IN (${sql.join(statuses)})`
 */
export interface Sql {
  readonly _tag: "Sql"
  readonly text: string
  readonly values: ReadonlyArray<SqlValue>
}

export type SqlValue = string | number | bigint | Buffer | null

const isSql = (value: unknown): value is Sql =>
  typeof value === "object" && value !== null && (value as { _tag?: unknown })._tag === "Sql"

function build(strings: ReadonlyArray<string>, values: ReadonlyArray<unknown>): Sql {
  let text = strings[0] ?? ""
  const bound: SqlValue[] = []
  values.forEach((value, i) => {
    if (isSql(value)) {
      text += value.text
      bound.push(...value.values)
    } else {
      text += "?"
      bound.push(toSqlValue(value))
    }
    text += strings[i + 1] ?? ""
  })
  return { _tag: "Sql", text, values: bound }
}

function toSqlValue(value: unknown): SqlValue {
  if (value === undefined || value === null) return null
  if (typeof value === "boolean") return value ? 1 : 0
  if (typeof value === "string" || typeof value === "number" || typeof value === "bigint" || Buffer.isBuffer(value))
    return value
  throw new TypeError(`sql: cannot bind a value of type ${typeof value}; encode it (e.g. JSON.stringify) first`)
}

export function sql(strings: TemplateStringsArray, ...values: ReadonlyArray<unknown>): Sql {
  return build(strings, values)
}

/** A comma-separated list of bound values (or fragments), for `IN (…)` and `VALUES (…)`. */
sql.join = (items: ReadonlyArray<unknown>, separator = ", "): Sql => {
  if (items.length === 0) throw new TypeError("sql.join: an empty list would produce invalid SQL")
  const strings = ["", ...items.slice(1).map(() => separator), ""]
  return build(strings, items)
}
