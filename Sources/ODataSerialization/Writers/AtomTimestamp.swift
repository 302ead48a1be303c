import EDM
import Foundation

/// The `updated` stamp Atom requires on feeds and entries: the time of the response, since
/// the rows record no modification time.
public enum AtomTimestamp {
    public static func now() -> String {
        let ms = Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
        var civil = CivilTime(millisecondsSinceEpoch: ms)
        civil.millisecond = 0
        return civil.isoText + "Z"
    }
}
