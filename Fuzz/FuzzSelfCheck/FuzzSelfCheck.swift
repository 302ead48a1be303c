// Crashes on the input "crash here", so that `scripts/fuzz --self-check` can see that a crash
// fails the run and leaves its input behind. Depends on nothing of the gateway.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeBufferPointer(start: data, count: size)
    if input.elementsEqual("crash here".utf8) {
        // An out-of-bounds read, so that AddressSanitizer's report is what fails the run.
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: 4)
        defer { buffer.deallocate() }
        return CInt(buffer[size])
    }
    return 0
}
