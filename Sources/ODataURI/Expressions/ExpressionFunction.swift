/// The canonical functions of OData V2 (MS-ODATA 2.2.3.6.1.1.2) that remain in the bound tree.
/// `isof` and `cast` are resolved while binding into comparisons, constants and conversions.
public enum ExpressionFunction: String, Sendable, CaseIterable {
    // String functions. Positions are zero-based.
    case substringOf = "substringof"
    case startsWith = "startswith"
    case endsWith = "endswith"
    case length
    case indexOf = "indexof"
    case replace
    case substring
    case toLower = "tolower"
    case toUpper = "toupper"
    case trim
    case concat
    // Date and time parts, in UTC for DateTime and DateTimeOffset; hour, minute and second also of Time.
    case day
    case month
    case year
    case hour
    case minute
    case second
    // Math functions. `round` rounds half away from zero.
    case round
    case floor
    case ceiling

    public var name: String { rawValue }
}
