import Foundation

/// A value written as an OData URI literal (MS-ODATA 2.2.2), for keys in resource paths:
/// `Set(1)`, `Set(12L)`, `Set('O''Brien')`, `Set(a=1,b='x')`. The text is percent-encoded
/// where a URI needs it, so it can go straight into a path given to `RestConnection`.
public protocol ODataLiteralConvertible {
    var odataLiteral: String { get }
}

extension ODataLiteralConvertible where Self: FixedWidthInteger {
    public var odataLiteral: String { String(self) }
}

extension UInt8: ODataLiteralConvertible {}
extension Int8: ODataLiteralConvertible {}
extension Int16: ODataLiteralConvertible {}
extension Int32: ODataLiteralConvertible {}

extension Int64: ODataLiteralConvertible {
    public var odataLiteral: String { "\(self)L" }
}

extension Bool: ODataLiteralConvertible {
    public var odataLiteral: String { self ? "true" : "false" }
}

extension Decimal: ODataLiteralConvertible {
    public var odataLiteral: String { "\(self)M" }
}

extension Double: ODataLiteralConvertible {
    public var odataLiteral: String { "\(self)d" }
}

extension Float: ODataLiteralConvertible {
    public var odataLiteral: String { "\(self)f" }
}

extension String: ODataLiteralConvertible {
    /// Quoted, with quotes doubled, and percent-encoded.
    public var odataLiteral: String {
        ODataLiteral.percentEncode("'" + replacingOccurrences(of: "'", with: "''") + "'", in: .pathSegment)
    }
}

extension UUID: ODataLiteralConvertible {
    public var odataLiteral: String { "guid'\(uuidString.lowercased())'" }
}

extension Date: ODataLiteralConvertible {
    /// `datetime'2009-10-31T17:08:28.44'`, in UTC.
    public var odataLiteral: String {
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
    public var odataLiteral: String {
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
