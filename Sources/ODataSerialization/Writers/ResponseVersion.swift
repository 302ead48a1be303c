/// The DataServiceVersion of a response. It decides the shape of collections: a 1.0 response
/// writes them as bare arrays, a 2.0 response as `{"results": [...]}` (MS-ODATA 2.2.6.3.2).
public enum ResponseVersion: Int, Comparable, Sendable {
    case v1 = 1
    case v2 = 2

    public static func < (lhs: ResponseVersion, rhs: ResponseVersion) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The header value, in the form WCF Data Services sends: `1.0;` or `2.0;`.
    public var headerValue: String { self == .v1 ? "1.0;" : "2.0;" }
}
