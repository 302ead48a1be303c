@testable import HTTPCore
import ODataHTTP
import ODataStore
import SQLiteStore
import Testing

/// A response's body is an array or lent from storage of its own, and its ETag is kept apart
/// from its header list; every reader of the response must see it whole.
@Suite struct HTTPResponseTests {
    final class Bytes: LentBody, @unchecked Sendable {
        let storage: [UInt8]
        init(_ text: String) { storage = Array(text.utf8) }
        var bytes: UnsafeBufferPointer<UInt8> { storage.withUnsafeBufferPointer { $0 } }
    }

    @Test func theETagIsFoundAndListedWithTheOtherFields() {
        var response = HTTPResponse(status: 200, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-cache")])
        #expect(response.header("ETag") == nil)
        #expect(response.allHeaders.count == 2)
        response.etag = #"W/"0123456789abcdef""#
        for name in ["ETag", "etag", "ETAG"] { #expect(response.header(name) == #"W/"0123456789abcdef""#) }
        #expect(response.allHeaders.map(\.0) == ["Content-Type", "Cache-Control", "ETag"])
        #expect(response.allHeaders.last?.1 == #"W/"0123456789abcdef""#)
        // A field in the list comes first, as it is sent first.
        response.headers.append(("ETag", "W/\"list\""))
        #expect(response.header("ETag") == "W/\"list\"")
    }

    @Test func aLentBodyReadsAsAnArrayUntilReplaced() {
        var response = HTTPResponse(status: 200, headers: [], lending: Bytes("{\"d\":1}"))
        #expect(response.lentBody != nil)
        #expect(response.body == Array("{\"d\":1}".utf8))
        #expect(response.bodyCount == 7)
        response.body = Array("x".utf8)
        #expect(response.lentBody == nil)
        #expect(response.body == Array("x".utf8))
        #expect(response.bodyCount == 1)
        #expect(HTTPResponse(status: 204).bodyCount == 0)
    }

    /// A weak tag written when the response is sent spells the digest as `EntityTag` does in
    /// `__metadata` and everywhere else: HTTPCore spells it itself, and the two must agree byte
    /// for byte, as text and as the C string handed to libmicrohttpd.
    @Test(arguments: [0, 1, 0xF, 0x10, 0x9A, 0xDEAD_BEEF, 0x0123_4567_89AB_CDEF, 0xFEDC_BA98_7654_3210, UInt64.max])
    func aWeakTagIsSpelledAsEntityTagSpellsIt(digest: UInt64) {
        #expect(EntityTagValue.weak(digest).text == EntityTag.weakTag(digest))
        #expect(EntityTagValue.weak(digest).withCString { String(cString: $0) } == EntityTag.weakTag(digest))
        #expect(EntityTagValue.weakTagLength == EntityTag.weakTagLength)
        var response = HTTPResponse(status: 200)
        response.entityTag = .weak(digest)
        #expect(response.header("ETag") == EntityTag.weakTag(digest))
        #expect(response.allHeaders.last?.1 == EntityTag.weakTag(digest))
        response.etag = "W/\"x\""
        #expect(response.entityTag == .text("W/\"x\""))
    }
}
