import Foundation

/// Token buckets, one per caller (a key's name, or an anonymous client's address): each holds up
/// to a second's worth of requests and refills at its rate.
final class RateLimiter: @unchecked Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: Double
    }

    private let lock = NSLock()
    private var buckets: [String: Bucket] = [:]
    /// Anonymous callers come from any number of addresses: past this many buckets, the full
    /// ones (callers quiet for a second or more) are dropped, which forgets nothing they owe.
    private let maxBuckets = 65_536

    /// Takes one request from `caller`'s budget of `rate` per second; nil when it may go on,
    /// else the seconds until it may.
    func take(_ caller: String, rate: Double, now: Double = ProcessInfo.processInfo.systemUptime) -> Int? {
        lock.lock()
        defer { lock.unlock() }
        let burst = max(1, rate)
        var bucket = buckets[caller] ?? Bucket(tokens: burst, updated: now)
        bucket.tokens = min(burst, bucket.tokens + (now - bucket.updated) * rate)
        bucket.updated = now
        guard bucket.tokens >= 1 else {
            buckets[caller] = bucket
            return max(1, Int(((1 - bucket.tokens) / rate).rounded(.up)))
        }
        bucket.tokens -= 1
        if buckets.count >= maxBuckets && buckets[caller] == nil {
            buckets = buckets.filter { min(burst, $0.value.tokens + (now - $0.value.updated) * rate) < burst }
        }
        buckets[caller] = bucket
        return nil
    }
}
