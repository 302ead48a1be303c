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
        var raw: Data
    }

    /// People whose last or first name contains `search` (any case), `top` at a time from `skip`.
    /// With no search and no paging, every person, through all of the server's pages.
    func people(search: String?, top: Int?, skip: Int?) async throws(DealerFailure) -> PeoplePage {
        var query: [URLQueryItem] = []
        if let search, !search.isEmpty {
            query.append(URLQueryItem(name: "$filter", value: DealerService.nameFilter(search)))
        }
        if let top { query.append(URLQueryItem(name: "$top", value: String(top))) }
        if let skip, skip > 0 { query.append(URLQueryItem(name: "$skip", value: String(skip))) }
        let paged = !query.isEmpty
        if paged { query.append(URLQueryItem(name: "$inlinecount", value: "allpages")) }

        let response = try await send(.get(Person.entitySetName, query: query))
        var page = try decodePage(response)
        var people = page.elements
        if !paged {
            // The whole list: follow the server's paging to the end.
            var seen: Set<URL> = []
            while let next = page.nextLink, seen.insert(next).inserted {
                page = try decodePage(try await send(.get(next.absoluteString)))
                people += page.elements
            }
        }
        return PeoplePage(people: people, totalCount: page.totalCount, skip: skip ?? 0, raw: response.data)
    }

    /// A person with their cars: the blog's `Person(id)?$expand=PersonCar,PersonCar/Car`.
    func personWithCars(_ personID: Int32) async throws(DealerFailure) -> (person: Person, raw: Data) {
        let path = Person.uri(personID: personID) + "?$expand=PersonCar,PersonCar/Car"
        let response = try await send(.get(path), notFound: "no person with ID \(personID)")
        return (try decode(Person.self, response), response.data)
    }

    /// One of a person's cars with its maintenance records and the jobs they were.
    func carWithMaintenance(_ personCarID: Int32) async throws(DealerFailure) -> (personCar: PersonCar, raw: Data) {
        let path = PersonCar.uri(personCarID: personCarID) + "?$expand=Car,Person,PersonCarMaintenance/Maintenance"
        let response = try await send(.get(path), notFound: "no PersonCar with ID \(personCarID)")
        return (try decode(PersonCar.self, response), response.data)
    }

    /// `substringof('smi',tolower(lastName)) or substringof('smi',tolower(firstName))`.
    static func nameFilter(_ search: String) -> String {
        let literal = "'" + search.lowercased().replacingOccurrences(of: "'", with: "''") + "'"
        return "substringof(\(literal),tolower(lastName)) or substringof(\(literal),tolower(firstName))"
    }

    // MARK: Requests

    private func send(_ request: RestRequest, notFound: String? = nil) async throws(DealerFailure) -> RestResponse {
        do {
            return try await connection.send(request)
        } catch {
            throw DealerFailure(error, serviceRoot: connection.baseURL, notFound: notFound)
        }
    }

    private func decode<Value: Decodable>(_ type: Value.Type, _ response: RestResponse) throws(DealerFailure) -> Value {
        do {
            return try ODataJSON.decodeEntity(Value.self, from: response.data, url: response.url)
        } catch {
            throw DealerFailure(error, serviceRoot: connection.baseURL)
        }
    }

    private func decodePage(_ response: RestResponse) throws(DealerFailure) -> ODataCollection<Person> {
        do {
            return try ODataJSON.decodeCollection(Person.self, from: response.data, url: response.url)
        } catch {
            throw DealerFailure(error, serviceRoot: connection.baseURL)
        }
    }
}
