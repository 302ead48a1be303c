import Foundation
import Testing

/// Tests that measure a gateway's resident memory do not run under AddressSanitizer
/// (`scripts/test --sanitize address`): its shadow memory and the quarantine that keeps freed
/// blocks from reuse add hundreds of MB that are the sanitizer's, not the gateway's.
let measuresResidentMemory = ConditionTrait.disabled(
    if: ProcessInfo.processInfo.environment["CARDEALER_SANITIZER"] != nil,
    "resident memory is the sanitizer's under a sanitized build")
