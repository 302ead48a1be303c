import Foundation
import RestConnection

/// The car dealer's questions, asked of the OData service. Every failure comes back as a
/// `DealerFailure` line; with `raw` set, callers also get the response body as it came.
struct DealerService: Sendable {
    let connection: RestConnection

    /// A page of people, and the body it came in.
    struct PeoplePage {
        var people: [Person]
        var totalCount: Int?
        var skip: Int
        /// What `--json` prints: the response as it came when the server answered in one page,
        /// else one document, `{"d":{"__count":…,"results":[…]}}`, of the rows asked for.
        var raw: Data
    }

    /// People whose last or first name contains `search` (any case), `top` at a time from `skip`.
    /// The server may page its answer (`__next`); its pages are followed until `top` people (or,
    /// without `top`, all of them) have arrived, so no row is ever skipped silently.
    func people(search: String?, top: Int?, skip: Int?) async throws(DealerFailure) -> PeoplePage {
        var query = ODataQuery()
        if let search, !search.isEmpty {
            query.filter = DealerService.nameFilter(search)
        }
        query.top = top
        if let skip, skip > 0 { query.skip = skip }
        let counted = search?.isEmpty == false || top != nil || (skip ?? 0) > 0
        if counted { query.inlineCount = true }

        let response = try await send(.get(Person.entitySetName, query: query.items))
        var page = try decodePage(response)
        var people = page.elements
        let totalCount = page.totalCount
        var rows = try rawRows(response)
        var seen: Set<URL> = []
        while people.count < top ?? .max, let next = page.nextLink, seen.insert(next).inserted {
            let nextResponse = try await send(.get(next.absoluteString))
            page = try decodePage(nextResponse)
            people += page.elements
            rows += try rawRows(nextResponse)
        }
        if let top, people.count > top { people.removeLast(people.count - top) }
        guard !seen.isEmpty else {
            return PeoplePage(people: people, totalCount: totalCount, skip: skip ?? 0, raw: response.data)
        }
        // The rows stay as the server wrote them; only the envelope is new.
        if let top, rows.count > top { rows.removeLast(rows.count - top) }
        var body: JSONObject = ["results": .array(rows)]
        if let totalCount { body["__count"] = .string(String(totalCount)) }
        let raw = (try? JSONEncoder().encode(JSONValue.object(["d": .object(body)]))) ?? response.data
        return PeoplePage(people: people, totalCount: totalCount, skip: skip ?? 0, raw: raw)
    }

    /// A person with their cars: the blog's `Person(id)?$expand=PersonCar,PersonCar/Car`.
    func personWithCars(_ personID: Int32) async throws(DealerFailure) -> (person: Person, raw: Data) {
        let path = Person.uri(personID: personID) + "?$expand=PersonCar,PersonCar/Car"
        let response = try await send(.get(path), notFound: (Person.entitySetName, "no person with ID \(personID)"))
        return (try decode(Person.self, response), response.data)
    }

    /// One of a person's cars with its maintenance records and the jobs they were.
    func carWithMaintenance(_ personCarID: Int32) async throws(DealerFailure) -> (personCar: PersonCar, raw: Data) {
        let path = PersonCar.uri(personCarID: personCarID) + "?$expand=Car,Person,PersonCarMaintenance/Maintenance"
        let response = try await send(.get(path), notFound: (PersonCar.entitySetName, "no PersonCar with ID \(personCarID)"))
        return (try decode(PersonCar.self, response), response.data)
    }

    /// `substringof('smi',tolower(lastName)) or substringof('smi',tolower(firstName))`.
    static func nameFilter(_ search: String) -> ODataFilter {
        let text = search.lowercased()
        return ODataFilter.substringOf(text, .property("lastName").lowercased())
            || ODataFilter.substringOf(text, .property("firstName").lowercased())
    }

    // MARK: Requests

    /// Sends a request. `notFound` names the entity set a key lookup is in and what a 404 means:
    /// it is said only when the set itself answers, so a wrong service root is not reported as a
    /// missing person.
    private func send(_ request: RestRequest, notFound: (entitySet: String, message: String)? = nil) async throws(DealerFailure) -> RestResponse {
        do {
            return try await connection.send(request)
        } catch {
            if let notFound, (error as? RestConnectionError)?.statusCode == 404,
               (try? await connection.send(.get(notFound.entitySet, query: [URLQueryItem(name: "$top", value: "0")]))) != nil {
                throw DealerFailure(notFound.message)
            }
            throw DealerFailure(error, serviceRoot: connection.baseURL)
        }
    }

    private func decode<Value: Decodable>(_ type: Value.Type, _ response: RestResponse) throws(DealerFailure) -> Value {
        do {
            return try ODataJSON.decodeEntity(Value.self, from: response.data, url: response.url)
        } catch {
            throw DealerFailure(error, serviceRoot: connection.baseURL)
        }
    }

    /// A page's rows, untyped, for `--json`.
    private func rawRows(_ response: RestResponse) throws(DealerFailure) -> [JSONValue] {
        let payload: ODataPayload
        do {
            payload = try ODataPayload(data: response.data, from: response.url)
        } catch {
            throw DealerFailure(error, serviceRoot: connection.baseURL)
        }
        guard case .collection(let collection) = payload else {
            throw DealerFailure(.unexpectedPayload(url: response.url, reason: "expected a collection"), serviceRoot: connection.baseURL)
        }
        return collection.elements.map(JSONValue.object)
    }

    private func decodePage(_ response: RestResponse) throws(DealerFailure) -> ODataCollection<Person> {
        do {
            return try ODataJSON.decodeCollection(Person.self, from: response.data, url: response.url)
        } catch {
            throw DealerFailure(error, serviceRoot: connection.baseURL)
        }
    }
}
