import EDM
import ODataURI

/// The SQL a storage engine speaks, wherever it differs between engines: every statement the
/// store builds (entity reads, `$filter` and `$orderby`, `$expand` key lists, writes, DDL) gets
/// its engine-specific text from here, so that a second engine supplies a dialect rather than
/// its own copy of the builders.
///
/// Contract for implementers:
/// - Parameters are positional: the `index`-th parameter of a statement (from 0) is written as
///   `placeholder(index)`. Builders number them in the order they appear in the text.
/// - Functions that take translated arguments (`function`, `datePart`) receive an `argument`
///   closure: each call translates that argument afresh, binding its parameters anew, so a
///   dialect must call it once for every place the argument appears in its text, in text order.
/// - Results follow OData V2 (and .NET) semantics, not the engine's: ordinal, case-sensitive
///   string comparison; zero-based `indexof` and `substring`; Unicode `tolower`/`toupper`.
/// - NULL sorts before every value in ascending order (keyset paging relies on it).
public protocol SQLDialect: Sendable {
    /// An identifier (table, column, index) quoted; names come from the model, never a request.
    func quote(_ identifier: String) -> String
    /// The text of the statement parameter at `index` (from 0): `?` in SQLite, `$1` in PostgreSQL.
    func placeholder(_ index: Int) -> String
    /// The tail that cuts a result: `limit` and `offset` are placeholders (or nil when absent).
    func limitClause(limit: String?, offset: String?) -> String
    /// `term ASC` or `term DESC`, with NULL first in ascending order and last in descending.
    func orderTerm(_ term: String, descending: Bool) -> String
    /// `term ASC` for a key column, which is never NULL: the order of the key's index, so that a
    /// page in key order reads the index rather than sorting the table.
    func keyOrderTerm(_ term: String) -> String

    /// The condition that `columns` (at `alias`) are one of the key tuples in the list parameter
    /// `placeholder`, whose value `keyList(_:)` makes: `$expand` reads the related entities of a
    /// whole page with one statement, whatever its number of parents.
    func keyMembership(columns: [String], alias: String, placeholder: String) -> String
    /// The value of a key-list parameter (see `keyMembership`).
    func keyList(_ keys: [LinkKey]) -> SQLValue

    /// `sql` as a floating-point number (Decimals are computed as doubles in `$filter`).
    func castToReal(_ sql: String) -> String
    /// `sql` truncated toward zero to an integer, or NULL when that is outside `range` (a `cast`
    /// to a smaller Integer type must not saturate or wrap into a value of it).
    func castToInteger(_ sql: String, within range: ClosedRange<Int64>) -> String
    /// The integer result of an arithmetic `sql` as a value of the type whose values are `range`:
    /// NULL when it is outside it, or when the engine overflowed computing it. Integer
    /// arithmetic over columns never widens silently (an error is for constants only, at bind).
    func integerResult(_ sql: String, within range: ClosedRange<Int64>) -> String
    /// What follows a string operand so that it compares ordinally and case-sensitively.
    var binaryCollation: String { get }
    /// Boolean constants, as values.
    var trueValue: String { get }
    var falseValue: String { get }
    /// `left = right` where NULL equals NULL (`negated`: `left <> right` where NULL differs from a value).
    func nullSafeEqual(_ left: String, _ right: String, negated: Bool) -> String
    /// The remainder of a division: `integral` operands keep the sign of the dividend.
    func remainder(_ left: String, _ right: String, integral: Bool) -> String
    /// A `$filter` function of strings or numbers (see the contract for `argument`).
    func function(_ function: ExpressionFunction, argumentCount: Int, argument: (Int) -> String) -> String
    /// year/month/day/hour/minute/second of a DateTime (milliseconds since the epoch, UTC) or
    /// hour/minute/second of a Time (milliseconds since midnight, `isTime`).
    func datePart(_ function: ExpressionFunction, of sql: String, isTime: Bool) -> String

    /// The column type of a primitive type in DDL.
    func columnType(_ type: PrimitiveType) -> String

    /// A parameter (`placeholder`) holding a value of `type` in its storage representation
    /// (`SQLValue+EDM.swift`), as the engine must see it: a Boolean is bound as 0 or 1, which an
    /// engine with a boolean type compares as one. Default: the placeholder.
    func parameter(_ placeholder: String, of type: PrimitiveType?) -> String
    /// `left op right` for the arithmetic operators but `mod` (`remainder`): `integral` operands
    /// divide with truncation toward zero, and the result goes through `integerResult`. A
    /// division by zero is NULL. Default: the operator between the operands, as SQLite computes it.
    func arithmetic(_ op: ArithmeticOperator, _ left: String, _ right: String, integral: Bool) -> String
    /// The type and constraint of a key column whose values the engine assigns (an identity
    /// key), as DDL: a key once assigned is never assigned again, even after its entity is
    /// deleted, so that a deleted entity's URI never comes back.
    func identityKeyColumn(_ type: PrimitiveType) -> String
    /// A statement that, inside a transaction, defers its foreign-key checks to the commit,
    /// so that rows may be inserted before the rows they refer to (seeding); nil (the
    /// default) when the engine checks every statement as it runs.
    var deferForeignKeyChecks: String? { get }
    /// How the engine computes Edm.Decimal exactly: with functions of its own over decimal text
    /// (SQLite) or with its native decimal type (PostgreSQL's NUMERIC); nil (the default)
    /// computes it in double precision (`castToReal`). Where it is set, a Decimal literal is
    /// bound as its text and `parameter(_:of: .decimal)` makes it the engine's decimal.
    var exactDecimal: (any ExactDecimalSQL)? { get }
    /// `value` written into the SQL text, where a parameter will not do (a row filter's derived
    /// table, whose text must be the same in every statement); the default is standard SQL with
    /// SQLite's blob form.
    func literal(_ value: SQLValue) -> String

    /// What ends a SELECT to lock the rows it reads until the transaction ends (` FOR UPDATE`),
    /// where writers run concurrently, so that a write's check of a row (its ETag) and its
    /// change of it are one step; nil (the default) where writes run one at a time already.
    var rowLockClause: String? { get }
}

extension SQLDialect {
    public var deferForeignKeyChecks: String? { nil }
    public var exactDecimal: (any ExactDecimalSQL)? { nil }
    public var rowLockClause: String? { nil }
    public func keyOrderTerm(_ term: String) -> String { orderTerm(term, descending: false) }

    public func parameter(_ placeholder: String, of type: PrimitiveType?) -> String { placeholder }

    public func literal(_ value: SQLValue) -> String { standardLiteral(value) }

    public func standardLiteral(_ value: SQLValue) -> String {
        switch value {
        case .null: return "NULL"
        case .integer(let number): return String(number)
        case .real(let number): return number.isFinite ? "(" + String(number) + ")" : "NULL"
        case .text(let text): return "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "''") + "'"
        case .blob(let bytes): return "X'" + bytes.map { String($0, radix: 16).leftPadded() }.joined() + "'"
        }
    }

    public func arithmetic(_ op: ArithmeticOperator, _ left: String, _ right: String, integral: Bool) -> String {
        let symbol: String
        switch op {
        case .add: symbol = " + "
        case .subtract: symbol = " - "
        case .multiply: symbol = " * "
        case .divide: symbol = " / "
        case .modulo: return remainder(left, right, integral: integral)
        }
        return "(" + left + symbol + right + ")"
    }
}

extension SQLDialect {
    /// `alias."column"`.
    public func column(_ alias: String, _ column: String) -> String {
        alias + "." + quote(column)
    }

    /// `t."a", t."b", ...`: every stored column of `type`, in stored-column order.
    public func columns(of type: EntityType, alias: String) -> String {
        type.columnNames.map { column(alias, $0) }.joined(separator: ", ")
    }

    /// The condition linking the source row to the target row of a navigation.
    public func joinCondition(_ navigation: NavigationProperty, sourceAlias: String, targetAlias: String) -> String {
        let fk = navigation.foreignKey
        let dependentAlias = navigation.targetHoldsForeignKey ? targetAlias : sourceAlias
        let principalAlias = navigation.targetHoldsForeignKey ? sourceAlias : targetAlias
        let principal = navigation.association.principal
        return zip(fk.columns, principal.keyProperties).map { column, key in
            self.column(dependentAlias, column) + " = " + self.column(principalAlias, key.columnName)
        }.joined(separator: " AND ")
    }

    /// `a = $1 AND b = $2`: `columns` (at `alias`, or unqualified when nil) equal to the
    /// parameters from `firstParameter` on.
    public func equality(columns: [String], alias: String?, firstParameter: Int = 0) -> String {
        columns.enumerated().map { offset, name in
            (alias.map { column($0, name) } ?? quote(name)) + " = " + placeholder(firstParameter + offset)
        }.joined(separator: " AND ")
    }
}

extension String {
    /// A byte's two hex digits.
    fileprivate func leftPadded() -> String { count == 1 ? "0" + self : self }
}
