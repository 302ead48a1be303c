import ODataURI

/// How an engine computes Edm.Decimal exactly in `$filter` and `$orderby`: the SQL of each
/// operation over translated operands, and the collation that compares and orders decimals by
/// value. An engine without it (`SQLDialect.exactDecimal` nil) computes them in double precision.
///
/// Results are those of .NET's decimal: a quotient is rounded half away from zero to 28 decimal
/// places (its largest scale) and a division by zero is NULL; a remainder has the sign of the
/// dividend; `round` is half away from zero. An operand's text may appear more than once in
/// the result only where the engine numbers its parameters (`$1`), so that it binds once.
public protocol ExactDecimalSQL: Sendable {
    /// An integer, a floating-point number or a decimal as a decimal.
    func convert(_ sql: String) -> String
    /// `left op right` for every arithmetic operator.
    func arithmetic(_ op: ArithmeticOperator, _ left: String, _ right: String) -> String
    func negate(_ sql: String) -> String
    func round(_ sql: String) -> String
    func floor(_ sql: String) -> String
    func ceiling(_ sql: String) -> String
    /// The aggregate sum of decimals (NULL over none).
    func sum(_ sql: String) -> String
    /// Appended to a decimal operand of a comparison, an ordering term or `min`/`max`, such as
    /// ` COLLATE EDM_DECIMAL`; empty where the engine's decimal type compares by value itself.
    var collation: String { get }
}

/// An engine's exact decimals as SQL functions of its own, one per operation (each called as
/// `name(operands)`), over decimal text compared by a collation: SQLite's.
public struct DecimalFunctionSQL: ExactDecimalSQL {
    public var convertName: String
    public var add: String
    public var subtract: String
    public var multiply: String
    public var divide: String
    public var modulo: String
    public var negateName: String
    public var roundName: String
    public var floorName: String
    public var ceilingName: String
    public var sumName: String
    public var collation: String

    public init(convert: String, add: String, subtract: String, multiply: String, divide: String, modulo: String,
                negate: String, round: String, floor: String, ceiling: String, sum: String, collation: String) {
        self.convertName = convert
        self.add = add
        self.subtract = subtract
        self.multiply = multiply
        self.divide = divide
        self.modulo = modulo
        self.negateName = negate
        self.roundName = round
        self.floorName = floor
        self.ceilingName = ceiling
        self.sumName = sum
        self.collation = collation
    }

    public func convert(_ sql: String) -> String { convertName + "(" + sql + ")" }
    public func arithmetic(_ op: ArithmeticOperator, _ left: String, _ right: String) -> String {
        let name: String
        switch op {
        case .add: name = add
        case .subtract: name = subtract
        case .multiply: name = multiply
        case .divide: name = divide
        case .modulo: name = modulo
        }
        return name + "(" + left + ", " + right + ")"
    }
    public func negate(_ sql: String) -> String { negateName + "(" + sql + ")" }
    public func round(_ sql: String) -> String { roundName + "(" + sql + ")" }
    public func floor(_ sql: String) -> String { floorName + "(" + sql + ")" }
    public func ceiling(_ sql: String) -> String { ceilingName + "(" + sql + ")" }
    public func sum(_ sql: String) -> String { sumName + "(" + sql + ")" }
}
