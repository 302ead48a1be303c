/// Edm.DateTimeOffset in one INTEGER column: the instant's milliseconds since the epoch (UTC)
/// shifted left by 12 bits, and the offset in minutes (at most ±14 hours) plus 2048 in those
/// bits. Ordered by the stored integer, values come in instant order (offsets break ties), and
/// an arithmetic shift right gives the instant back, which `$filter` and `$orderby` compare.
public enum DateTimeOffsetStorage {
    static let offsetBits: Int64 = 12
    static let offsetBias = 2048

    public static func stored(milliseconds: Int64, offsetMinutes: Int) -> Int64 {
        precondition(abs(offsetMinutes) < offsetBias, "an offset is at most 14 hours")
        return milliseconds << offsetBits | Int64(offsetMinutes + offsetBias)
    }

    public static func value(_ stored: Int64) -> (milliseconds: Int64, offsetMinutes: Int) {
        (stored >> offsetBits, Int(stored & (1 << offsetBits - 1)) - offsetBias)
    }

    /// SQL for the instant, in milliseconds, of a stored value: `>>` shifts arithmetically
    /// (SQLite, PostgreSQL's bigint).
    public static func instant(_ sql: String) -> String {
        "(" + sql + " >> " + String(offsetBits) + ")"
    }
}
