import Foundation

/// A value written as an OData URI literal (MS-ODATA 2.2.2): `1`, `12L`, `'O''Brien'`,
/// `datetime'2009-10-31T17:08:28'`.
///
/// Two forms, for two places: `odataLiteral` is percent-encoded for a resource path given to
/// `RestConnection` as text (`Set('O%27%27Brien')`); `odataLiteralText` is not encoded, for
/// `ODataQuery`, `ODataFilter` and `query:` items, which `RestConnection` encodes once itself.
/// Putting `odataLiteral` into a query item would encode it twice.
public protocol ODataLiteralConvertible: Sendable {
    /// The literal as OData writes it, not percent-encoded.
    var odataLiteralText: String { get }
}

extension ODataLiteralConvertible {
    /// The literal percent-encoded for a path segment, such as a key: `Person('a%2Fb')`.
    public var odataLiteral: String { ODataLiteral.percentEncode(odataLiteralText, in: .pathSegment) }
}

extension ODataLiteralConvertible where Self: FixedWidthInteger {
    public var odataLiteralText: String { String(self) }
}

extension Int: ODataLiteralConvertible {}
extension UInt8: ODataLiteralConvertible {}
extension Int8: ODataLiteralConvertible {}
extension Int16: ODataLiteralConvertible {}
extension Int32: ODataLiteralConvertible {}

extension Int64: ODataLiteralConvertible {
    public var odataLiteralText: String { "\(self)L" }
}

extension Bool: ODataLiteralConvertible {
    public var odataLiteralText: String { self ? "true" : "false" }
}

extension Decimal: ODataLiteralConvertible {
    public var odataLiteralText: String { "\(self)M" }
}

extension Double: ODataLiteralConvertible {
    public var odataLiteralText: String { "\(self)d" }
}

extension Float: ODataLiteralConvertible {
    public var odataLiteralText: String { "\(self)f" }
}

extension String: ODataLiteralConvertible {
    /// Quoted, with quotes doubled.
    public var odataLiteralText: String {
        "'" + replacingOccurrences(of: "'", with: "''") + "'"
    }
}

extension UUID: ODataLiteralConvertible {
    public var odataLiteralText: String { "guid'\(uuidString.lowercased())'" }
}

extension Date: ODataLiteralConvertible {
    /// `datetime'2009-10-31T17:08:28.44'`, in UTC.
    public var odataLiteralText: String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: self)
        let milliseconds = Int((timeIntervalSince1970 * 1000).rounded()) % 1000
        var text = String(format: "%04d-%02d-%02dT%02d:%02d:%02d", parts.year!, parts.month!, parts.day!,
                          parts.hour!, parts.minute!, parts.second!)
        if milliseconds > 0 {
            text += String(format: ".%03d", milliseconds)
        }
        return "datetime'\(text)'"
    }
}

extension Data: ODataLiteralConvertible {
    public var odataLiteralText: String {
        "X'" + map { String(format: "%02X", $0) }.joined() + "'"
    }
}

public enum ODataLiteral {
    /// Where percent-encoded text goes: what may stay unencoded differs a little.
    public enum Context: Sendable {
        /// Inside one path segment, such as a key literal: `/` is encoded.
        case pathSegment
        /// A query option's value: `/` stays (`$expand=PersonCar/Car`).
        case queryValue
    }

    /// Characters left as they are; everything else is percent-encoded (`+`, `&`, `=`, `#`, `?`
    /// and `%` included: some servers read `+` as a space, and the others end or split options).
    private static let unreserved: CharacterSet = {
        var set = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        set.insert(charactersIn: "-._~'()*!,;:@$")
        return set
    }()

    private static let unreservedInQuery: CharacterSet = unreserved.union(CharacterSet(charactersIn: "/"))

    /// Percent-encodes text for a path segment or a query option's value.
    public static func percentEncode(_ text: String, in context: Context) -> String {
        let allowed = context == .pathSegment ? unreserved : unreservedInQuery
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
