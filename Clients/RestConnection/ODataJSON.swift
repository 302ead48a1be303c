import Foundation

/// Typed reading and writing of verbose JSON: the `d` envelope, both collection shapes, and
/// OData's forms of dates for `Date` properties that are not declared through `ODataPrimitive`.
public enum ODataJSON {
    /// A decoder that reads `"\/Date(ms)\/"` (and ISO 8601) into `Date`.
    public static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = ODataDate.parse(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "\"\(text)\" is not a date")
            }
            return date
        }
        return decoder
    }

    /// An encoder that writes `Date` as `"\/Date(ms)\/"`.
    public static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(ODataDate.format(date))
        }
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }

    /// Decodes `{"d": {...}}` into one value.
    public static func decodeEntity<Value: Decodable>(_ type: Value.Type, from data: Data, url: URL) throws(RestConnectionError) -> Value {
        try decode(Envelope<Value>.self, from: data, url: url).d
    }

    /// Decodes a collection in either version's shape into one page.
    public static func decodeCollection<Element: Decodable>(_ type: Element.Type, from data: Data, url: URL) throws(RestConnectionError) -> ODataCollection<Element> {
        let body = try decode(Envelope<CollectionBody<Element>>.self, from: data, url: url).d
        let next = body.next.flatMap { URL(string: $0, relativeTo: url)?.absoluteURL }
        return ODataCollection(elements: body.elements, totalCount: body.count, nextLink: next, shape: body.shape)
    }

    private static func decode<Value: Decodable>(_ type: Value.Type, from data: Data, url: URL) throws(RestConnectionError) -> Value {
        do {
            return try makeDecoder().decode(Value.self, from: data)
        } catch let error as DecodingError {
            throw .unexpectedPayload(url: url, reason: describe(error, data: data))
        } catch {
            throw .unexpectedPayload(url: url, reason: "\(error)")
        }
    }

    /// A decoding error in a sentence that says where in the JSON it happened.
    static func describe(_ error: DecodingError, data: Data) -> String {
        func path(_ codingPath: [any CodingKey]) -> String {
            var text = ""
            for key in codingPath {
                if let index = key.intValue {
                    text += "[\(index)]"
                } else {
                    text += text.isEmpty ? key.stringValue : "." + key.stringValue
                }
            }
            return text.isEmpty ? "the top level" : text
        }
        switch error {
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty, context.underlyingError != nil || (try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])) == nil {
                return "the response is not JSON: \(ODataPayload.preview(data))"
            }
            return "at \(path(context.codingPath)): \(context.debugDescription)"
        case .keyNotFound(let key, let context):
            return "at \(path(context.codingPath)): no \"\(key.stringValue)\""
        case .typeMismatch(let type, let context):
            return "at \(path(context.codingPath)): expected \(type)"
        case .valueNotFound(let type, let context):
            return "at \(path(context.codingPath)): expected \(type), found null"
        @unknown default:
            return "\(error)"
        }
    }

    private struct Envelope<Body: Decodable>: Decodable {
        var d: Body
    }

    private struct CollectionBody<Element: Decodable>: Decodable {
        var elements: [Element]
        var count: Int?
        var next: String?
        var shape: ODataCollection<Element>.Shape

        private enum CodingKeys: String, CodingKey {
            case results, count = "__count", next = "__next"
        }

        init(from decoder: any Decoder) throws {
            if (try? decoder.unkeyedContainer()) != nil {
                elements = try [Element](from: decoder)
                shape = .bareArray
                return
            }
            let container = try decoder.container(keyedBy: CodingKeys.self)
            elements = try container.decode([Element].self, forKey: .results)
            if let text = try? container.decodeIfPresent(String.self, forKey: .count) {
                guard let number = Int(text) else {
                    throw DecodingError.dataCorruptedError(forKey: .count, in: container, debugDescription: "\"\(text)\" is not a count")
                }
                count = number
            } else {
                count = try container.decodeIfPresent(Int.self, forKey: .count)
            }
            next = try container.decodeIfPresent(String.self, forKey: .next)
            shape = .resultsObject
        }
    }
}
