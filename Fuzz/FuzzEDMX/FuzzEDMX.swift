// Feeds EDMX documents to CSDL's CSDLReader and, when they read, to EDM's ModelLoader, which
// resolves every reference and the storage mapping, as the gateway does with its schema.
import CSDL
import EDM
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let document = Data(bytes: data, count: size)
    guard let csdl = try? CSDLReader.read(data: document) else { return 0 }
    _ = try? ModelLoader.load(csdl)
    return 0
}
