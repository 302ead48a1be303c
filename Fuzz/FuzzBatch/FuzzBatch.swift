// Feeds `$batch` requests to ODataHTTP's BatchRequestParser: the input's first line is the
// request's Content-Type header (with the boundary), the rest its body. Change sets that parse
// then have their Content-ID references resolved, as the batch processor does.
import Foundation
import ODataHTTP

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeBufferPointer(start: data, count: size)
    let lineEnd = input.firstIndex(of: UInt8(ascii: "\n")) ?? input.endIndex
    let contentType = String(decoding: input[..<lineEnd], as: UTF8.self)
    let body = Array(input[min(lineEnd + 1, input.endIndex)...])
    guard let batch = try? BatchRequestParser().parse(body, contentType: contentType) else { return 0 }
    for case .changeSet(let operations) in batch.parts {
        var references = ContentIDReferences()
        for (index, operation) in operations.enumerated() {
            _ = try? references.resolve(operation.uri)
            if let id = operation.contentID {
                references.record(contentID: id, location: "http://localhost/CarDealer.svc/Person(\(index))")
            }
        }
    }
    return 0
}
