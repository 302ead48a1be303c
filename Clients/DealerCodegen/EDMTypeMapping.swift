/// How an EDM simple type is held in Swift, and written as a key in a URI.
struct EDMTypeMapping {
    /// The Swift type, e.g. `Int32`.
    var swiftType: String
    /// How a key of this type goes into a URI: plainly (`Person(1)`), through `odataLiteral`
    /// (`Item(12L)`, `Tag('x')`), or not at all (no URI builder for such a key).
    var keyLiteral: KeyLiteral

    enum KeyLiteral {
        case plain, odataLiteral, unsupported
    }

    /// The mapping for a CSDL type name; anything unknown is kept as untyped JSON.
    static func mapping(for edmType: String) -> EDMTypeMapping {
        switch edmType {
        case "Edm.Binary": return EDMTypeMapping(swiftType: "Data", keyLiteral: .odataLiteral)
        case "Edm.Boolean": return EDMTypeMapping(swiftType: "Bool", keyLiteral: .odataLiteral)
        case "Edm.Byte": return EDMTypeMapping(swiftType: "UInt8", keyLiteral: .plain)
        case "Edm.DateTime": return EDMTypeMapping(swiftType: "Date", keyLiteral: .odataLiteral)
        case "Edm.DateTimeOffset": return EDMTypeMapping(swiftType: "ODataDateTimeOffset", keyLiteral: .odataLiteral)
        case "Edm.Decimal": return EDMTypeMapping(swiftType: "Decimal", keyLiteral: .odataLiteral)
        case "Edm.Double": return EDMTypeMapping(swiftType: "Double", keyLiteral: .odataLiteral)
        case "Edm.Guid": return EDMTypeMapping(swiftType: "UUID", keyLiteral: .odataLiteral)
        case "Edm.Int16": return EDMTypeMapping(swiftType: "Int16", keyLiteral: .plain)
        case "Edm.Int32": return EDMTypeMapping(swiftType: "Int32", keyLiteral: .plain)
        case "Edm.Int64": return EDMTypeMapping(swiftType: "Int64", keyLiteral: .odataLiteral)
        case "Edm.SByte": return EDMTypeMapping(swiftType: "Int8", keyLiteral: .plain)
        case "Edm.Single": return EDMTypeMapping(swiftType: "Float", keyLiteral: .odataLiteral)
        case "Edm.String": return EDMTypeMapping(swiftType: "String", keyLiteral: .odataLiteral)
        // Edm.Time is a duration ("PT13H20M") in V2 JSON.
        case "Edm.Time": return EDMTypeMapping(swiftType: "ODataDuration", keyLiteral: .odataLiteral)
        default: return EDMTypeMapping(swiftType: "JSONValue", keyLiteral: .unsupported)
        }
    }
}
