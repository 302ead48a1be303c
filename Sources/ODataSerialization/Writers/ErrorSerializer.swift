import CSDL

/// OData error bodies (MS-ODATA 2.2.8.1): `{"error": {"code", "message": {"lang", "value"}}}`
/// in JSON, `<m:error>` in XML.
public enum ErrorSerializer {
    public static func json(code: String, message: String) -> [UInt8] {
        var json = JSONWriter()
        json.raw("{\"error\":{\"code\":")
        json.string(code)
        json.raw(",\"message\":{\"lang\":\"en-US\",\"value\":")
        json.string(message)
        json.raw("}}}")
        return json.bytes
    }

    public static func xml(code: String, message: String) -> String {
        "<?xml version=\"1.0\" encoding=\"utf-8\" standalone=\"yes\"?>\n"
            + "<error xmlns=\"\(CSDLNamespaces.dataServicesMetadata)\">\n"
            + "  <code>\(CSDLWriter.escape(code))</code>\n"
            + "  <message xml:lang=\"en-US\">\(CSDLWriter.escape(message))</message>\n</error>\n"
    }
}
