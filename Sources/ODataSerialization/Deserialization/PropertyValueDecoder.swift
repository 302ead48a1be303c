import EDM
import ODataURI

/// Turns the JSON value of one structural property into an `EDMValue`, checking the EDM type
/// and the facets (Nullable, MaxLength, Precision, Scale). The forms accepted are those of
/// MS-ODATA 2.2.6.3.1 plus the ones real V2 clients send: Int64 and Decimal as strings or
/// numbers, other integers as numbers or numeric strings, DateTime as `\/Date(ms)\/` or ISO 8601.
enum PropertyValueDecoder {
    static func decode(_ json: JSONValue, for property: Property) throws(PayloadError) -> EDMValue {
        switch json {
        case .null:
            guard property.isNullable else {
                throw PayloadError("Property '\(property.name)' is not nullable and cannot be set to null.", propertyName: property.name)
            }
            return .null
        case .bool(let value):
            guard property.type == .boolean else { throw wrongKind(json, for: property) }
            return .boolean(value)
        case .number(let number):
            return try decodeNumber(number, for: property)
        case .string(let text):
            if property.type == .boolean { throw wrongKind(json, for: property) }
            return try decodeText(text, for: property)
        case .array, .object:
            throw wrongKind(json, for: property)
        }
    }

    /// A value written as text: a JSON string, or a raw `$value` body. Booleans are not
    /// accepted here from JSON strings (the caller decides), but are from raw text.
    static func decodeText(_ text: String, for property: Property) throws(PayloadError) -> EDMValue {
        func invalid(_ what: String) -> PayloadError {
            PayloadError("Property '\(property.name)' expects an \(property.type.name) value: '\(clip(text))' is not \(what).",
                         propertyName: property.name)
        }
        switch property.type {
        case .string:
            if let maxLength = property.maxLength {
                let length = text.unicodeScalars.count
                if length > maxLength {
                    throw PayloadError("Property '\(property.name)' is longer than its MaxLength of \(maxLength) (\(length) characters).",
                                       propertyName: property.name)
                }
            }
            return .string(text)
        case .boolean:
            switch text {
            case "true": return .boolean(true)
            case "false": return .boolean(false)
            default: throw invalid("true or false")
            }
        case .byte, .sByte, .int16, .int32, .int64:
            var digits = Substring(text)
            if digits.first == "+" { digits = digits.dropFirst() }
            let body = digits.first == "-" ? digits.dropFirst() : digits
            guard !body.isEmpty, body.allSatisfy({ $0 >= "0" && $0 <= "9" }) else { throw invalid("an integer") }
            return try integer(Int64(digits), literal: text, for: property)
        case .decimal:
            guard let decimal = DecimalText(text) else { throw invalid("a decimal number") }
            return try checkedDecimal(decimal, for: property)
        case .double, .single:
            switch text {
            case "INF", "Infinity": return .double(.infinity)
            case "-INF", "-Infinity": return .double(-.infinity)
            case "NaN": return .double(.nan)
            default:
                guard DecimalText(text) != nil, let value = Double(text) else { throw invalid("a number") }
                return try checkedFloatingPoint(value, literal: text, for: property)
            }
        case .dateTime:
            guard let instant = DateTimeText.parseInstant(text) else {
                throw invalid("a date and time (\\/Date(milliseconds)\\/ or yyyy-mm-ddThh:mm:ss)")
            }
            return .dateTime(instant.milliseconds)
        case .dateTimeOffset:
            guard let instant = DateTimeText.parseInstant(text) else {
                throw invalid("a date and time with an offset (\\/Date(milliseconds+mmmm)\\/ or yyyy-mm-ddThh:mm:ss+hh:mm)")
            }
            return .dateTimeOffset(instant.milliseconds, offsetMinutes: instant.offsetMinutes ?? 0)
        case .time:
            guard let ms = DateTimeText.parseTimeOfDay(text) else { throw invalid("a time of day such as PT13H20M") }
            guard ms < 86_400_000 else {
                throw PayloadError("Property '\(property.name)' expects an Edm.Time value: '\(clip(text))' is not less than 24 hours.",
                                   propertyName: property.name)
            }
            return .time(ms)
        case .guid:
            guard LiteralParser.isGuid(text) else {
                throw invalid("a GUID of the form dddddddd-dddd-dddd-dddd-dddddddddddd")
            }
            return .guid(text.lowercased())
        case .binary:
            guard let bytes = Base64.decode(text) else { throw invalid("base64-encoded binary data") }
            if let maxLength = property.maxLength, bytes.count > maxLength {
                throw PayloadError("Property '\(property.name)' is longer than its MaxLength of \(maxLength) (\(bytes.count) bytes).",
                                   propertyName: property.name)
            }
            return .binary(bytes)
        }
    }

    private static func decodeNumber(_ number: JSONNumber, for property: Property) throws(PayloadError) -> EDMValue {
        switch property.type {
        case .byte, .sByte, .int16, .int32, .int64:
            guard number.isIntegerLiteral else {
                throw PayloadError("Property '\(property.name)' expects an \(property.type.name) value: \(clip(number.literal)) is not an integer.",
                                   propertyName: property.name)
            }
            return try integer(Int64(number.literal), literal: number.literal, for: property)
        case .decimal:
            // The grammar of a JSON number is DecimalText's, but for exponents of more than four
            // digits, which describe digits no column stores.
            guard let decimal = DecimalText(number.literal) else {
                throw PayloadError("Property '\(property.name)' expects an Edm.Decimal value: \(clip(number.literal)) is out of range.",
                                   propertyName: property.name)
            }
            return try checkedDecimal(decimal, for: property)
        case .double, .single:
            return try checkedFloatingPoint(number.doubleValue, literal: number.literal, for: property)
        default:
            throw PayloadError("Property '\(property.name)' expects an \(property.type.name) value, not a number.",
                               propertyName: property.name)
        }
    }

    private static func integer(_ value: Int64?, literal: String, for property: Property) throws(PayloadError) -> EDMValue {
        let range = property.type.integerRange!
        guard let value, range.contains(value) else {
            throw PayloadError("Property '\(property.name)' expects an \(property.type.name) value: \(clip(literal)) is out of range (\(range.lowerBound) to \(range.upperBound)).",
                               propertyName: property.name)
        }
        return .integer(value)
    }

    private static func checkedDecimal(_ decimal: DecimalText, for property: Property) throws(PayloadError) -> EDMValue {
        if let violation = decimal.facetViolation(precision: property.precision, scale: property.scale) {
            throw PayloadError("Property '\(property.name)' expects an Edm.Decimal value: \(violation).", propertyName: property.name)
        }
        return .decimal(decimal.text(scale: property.scale))
    }

    private static func checkedFloatingPoint(_ value: Double, literal: String, for property: Property) throws(PayloadError) -> EDMValue {
        let limit = property.type == .single ? Double(Float.greatestFiniteMagnitude) : Double.greatestFiniteMagnitude
        guard value.isFinite, abs(value) <= limit else {
            throw PayloadError("Property '\(property.name)' expects an \(property.type.name) value: \(clip(literal)) is out of range.",
                               propertyName: property.name)
        }
        return .double(value)
    }

    private static func wrongKind(_ json: JSONValue, for property: Property) -> PayloadError {
        PayloadError("Property '\(property.name)' expects an \(property.type.name) value, not \(json.kindName).",
                     propertyName: property.name)
    }

    /// Long offending values are cut so that the message stays readable.
    private static func clip(_ text: String) -> String {
        text.count <= 40 ? text : String(text.prefix(37)) + "..."
    }
}
