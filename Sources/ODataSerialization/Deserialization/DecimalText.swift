import ODataURI

/// Exact decimal text: parsing, canonical form and the Precision/Scale facets, without ever
/// passing through a binary floating-point value. The syntax check and the canonical form are
/// the URI literals' (`LiteralParser`); what is added here is the exponent of JSON numbers and
/// the facet check.
struct DecimalText: Equatable {
    var isNegative: Bool
    /// Digits before the point, without leading zeros ("" for zero).
    var integerDigits: String
    /// Digits after the point, without trailing zeros.
    var fractionDigits: String

    /// Parses `[+-]digits[.digits][(e|E)[+-]digits]` (a JSON number literal is one of these,
    /// and so is the usual string form of an Edm.Decimal). `.5` and `5.` are accepted as .NET does.
    init?(_ text: String) {
        guard LiteralParser.isDecimalNumber(Substring(text), allowExponent: true) else { return nil }
        var mantissa = Substring(text)
        var exponent = 0
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            mantissa = text[..<e]
            let exponentText = text[text.index(after: e)...]
            // An exponent beyond a few hundred could only describe digits no column stores.
            guard exponentText.drop(while: { $0 == "+" || $0 == "-" }).count <= 4, let value = Int(exponentText) else { return nil }
            exponent = value
        }
        var sign = ""
        if mantissa.first == "-" || mantissa.first == "+" {
            sign = String(mantissa.first!)
            mantissa = mantissa.dropFirst()
        }
        // Shift the point by the exponent over the digit string, then let the literal parser
        // strip the superfluous zeros.
        let whole = mantissa.prefix { $0 != "." }
        let fraction = mantissa.contains(".") ? mantissa.drop { $0 != "." }.dropFirst() : ""
        var digits = String(whole) + String(fraction)
        var point = whole.count + exponent
        if point < 0 {
            digits = String(repeating: "0", count: -point) + digits
            point = 0
        } else if point > digits.count {
            digits += String(repeating: "0", count: point - digits.count)
        }
        let shifted = sign + digits.prefix(point) + "." + digits.dropFirst(point)
        let canonical = LiteralParser.canonicalDecimal(Substring(shifted))
        isNegative = canonical.hasPrefix("-")
        let unsigned = isNegative ? canonical.dropFirst() : Substring(canonical)
        let integer = unsigned.prefix { $0 != "." }
        integerDigits = integer == "0" ? "" : String(integer)
        fractionDigits = unsigned.contains(".") ? String(unsigned.drop { $0 != "." }.dropFirst()) : ""
    }

    /// `-12.5`, `0.25`, `3`: no plus sign, no superfluous zeros, no exponent.
    var canonicalText: String {
        (isNegative ? "-" : "") + (integerDigits.isEmpty ? "0" : integerDigits) + (fractionDigits.isEmpty ? "" : "." + fractionDigits)
    }

    /// The canonical text with the fraction padded to `scale` digits, as a column of that Scale
    /// holds it (`12.5` in a Scale 2 column is `12.50`, as SQL Server and .NET write it).
    func text(scale: Int?) -> String {
        guard let scale, scale > fractionDigits.count else { return canonicalText }
        let fraction = fractionDigits + String(repeating: "0", count: scale - fractionDigits.count)
        return (isNegative ? "-" : "") + (integerDigits.isEmpty ? "0" : integerDigits) + "." + fraction
    }

    /// Why the value does not fit `Precision`/`Scale` (CSDL: Scale defaults to 0 when only
    /// Precision is given); nil when it fits or no facet is declared.
    func facetViolation(precision: Int?, scale: Int?) -> String? {
        if let scale, fractionDigits.count > scale {
            return "\(canonicalText) has \(fractionDigits.count) digits after the decimal point, more than its Scale of \(scale)"
        }
        if let precision {
            let allowedIntegerDigits = precision - (scale ?? 0)
            if integerDigits.count > allowedIntegerDigits {
                return "\(canonicalText) has \(integerDigits.count) digits before the decimal point; Precision \(precision) and Scale \(scale ?? 0) allow \(allowedIntegerDigits)"
            }
        }
        return nil
    }
}
