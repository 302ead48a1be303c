/// How an engine computes Edm.Decimal exactly in `$filter` and `$orderby`: the functions it
/// calls (each `name(operands)`) and the collation that compares and orders decimals by value.
/// An engine without it (`SQLDialect.exactDecimal` nil) computes them in double precision.
public struct ExactDecimalSQL: Sendable {
    /// An integer, a floating-point number or a decimal as a decimal.
    public var convert: String
    public var add: String
    public var subtract: String
    public var multiply: String
    public var divide: String
    public var modulo: String
    public var negate: String
    public var round: String
    public var floor: String
    public var ceiling: String
    /// The aggregate sum of decimals.
    public var sum: String
    /// Appended to a decimal operand of a comparison, an ordering term or `min`/`max`, such as
    /// ` COLLATE EDM_DECIMAL`.
    public var collation: String

    public init(convert: String, add: String, subtract: String, multiply: String, divide: String, modulo: String,
                negate: String, round: String, floor: String, ceiling: String, sum: String, collation: String) {
        self.convert = convert
        self.add = add
        self.subtract = subtract
        self.multiply = multiply
        self.divide = divide
        self.modulo = modulo
        self.negate = negate
        self.round = round
        self.floor = floor
        self.ceiling = ceiling
        self.sum = sum
        self.collation = collation
    }
}
