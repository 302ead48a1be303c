import Foundation
import RestConnection
import Testing
@testable import Dealer

/// Reading verbose JSON without a server: the blog's own response, both collection shapes,
/// OData's forms of dates, Int64 and Decimal, and the error body.
@Suite struct ODataDecodingTests {
    let url = URL(string: "http://example.invalid/CarDealer.svc/Person")!

    @Test func blogResponseDecodesIntoTheGeneratedModels() throws {
        let person = try ODataJSON.decodeEntity(Person.self, from: Data(BlogFixture.person1Expanded.utf8), url: url)
        #expect(person.personID == 1)
        #expect(person.firstName == "Bob")
        #expect(person.lastName == "Samson")
        #expect(person.ssn == "543872934")
        #expect(person.createDate == Date(timeIntervalSince1970: 1_257_008_908.440))
        #expect(person.metadata?.type == "edmexampleModel.Person")
        let cars = try #require(person.personCar)
        #expect(cars.map(\.personCarID) == [1, 2])
        #expect(cars.map { $0.car?.model } == ["Explorer", "Mustang"])
        #expect(cars[0].car?.manufactureDate == Date(timeIntervalSince1970: 1_099_242_508.440))
        // Deferred navigation properties decode as nil.
        #expect(cars[0].person == nil)
        #expect(cars[0].personCarMaintenance == nil)
        #expect(cars[0].car?.personCar == nil)
    }

    @Test func blogResponseUnwrapsToASingleObject() throws {
        let payload = try ODataPayload(data: Data(BlogFixture.person1Expanded.utf8), from: url)
        let object = try #require(payload.object)
        #expect(payload.array == nil)
        #expect(object["firstName"] == .string("Bob"))
        #expect(object["PersonCar"]?.arrayValue?.count == 2)
        #expect(object["createDate"]?.dateValue == Date(timeIntervalSince1970: 1_257_008_908.440))
    }

    @Test func version1CollectionIsABareArray() throws {
        let json = #"{"d":[{"personID":1},{"personID":2}]}"#
        let collection = try #require(try ODataPayload(data: Data(json.utf8), from: url).collection)
        #expect(collection.shape == .bareArray)
        #expect(collection.elements.count == 2)
        #expect(collection.totalCount == nil)
        #expect(collection.nextLink == nil)
    }

    @Test func version2CollectionHasResultsCountAndNext() throws {
        let json = #"{"d":{"results":[{"personID":1}],"__count":"60","__next":"http://example.invalid/CarDealer.svc/Person?$skiptoken=1"}}"#
        let collection = try #require(try ODataPayload(data: Data(json.utf8), from: url).collection)
        #expect(collection.shape == .resultsObject)
        #expect(collection.elements == [["personID": .integer(1)]])
        #expect(collection.totalCount == 60)
        #expect(collection.nextLink?.absoluteString == "http://example.invalid/CarDealer.svc/Person?$skiptoken=1")

        struct Row: Decodable, Equatable { var personID: Int32 }
        let typed = try ODataJSON.decodeCollection(Row.self, from: Data(json.utf8), url: url)
        #expect(typed.elements == [Row(personID: 1)])
        #expect(typed.totalCount == 60)
    }

    @Test func expandedCollectionsDecodeInBothShapes() throws {
        let version1 = #"{"d":{"personCarID":1,"createStamp":"\/Date(0)\/","PersonCarMaintenance":[]}}"#
        let version2 = #"{"d":{"personCarID":1,"createStamp":"\/Date(0)\/","PersonCarMaintenance":{"results":[]}}}"#
        let deferred = #"{"d":{"personCarID":1,"createStamp":"\/Date(0)\/","PersonCarMaintenance":{"__deferred":{"uri":"x"}}}}"#
        #expect(try ODataJSON.decodeEntity(PersonCar.self, from: Data(version1.utf8), url: url).personCarMaintenance == [])
        #expect(try ODataJSON.decodeEntity(PersonCar.self, from: Data(version2.utf8), url: url).personCarMaintenance == [])
        #expect(try ODataJSON.decodeEntity(PersonCar.self, from: Data(deferred.utf8), url: url).personCarMaintenance == nil)
    }

    @Test func decimalsAndInt64ArriveAsStrings() throws {
        let json = #"{"d":{"maintenanceID":3,"description":"Oil change","category":"Engine","laborHours":"0.50","standardPrice":"39.95","intervalMiles":null}}"#
        let maintenance = try ODataJSON.decodeEntity(Maintenance.self, from: Data(json.utf8), url: url)
        #expect(maintenance.standardPrice == Decimal(string: "39.95"))
        #expect(maintenance.laborHours == Decimal(string: "0.5"))
        #expect(maintenance.intervalMiles == nil)

        struct Big: Decodable {
            var value: Int64
            enum CodingKeys: CodingKey { case value }
            init(from decoder: any Decoder) throws {
                value = try decoder.container(keyedBy: CodingKeys.self).decodeOData(Int64.self, forKey: .value)
            }
        }
        let big = try ODataJSON.decodeEntity(Big.self, from: Data(#"{"d":{"value":"9223372036854775807"}}"#.utf8), url: url)
        #expect(big.value == Int64.max)
    }

    /// Decimal at precision 29 and Int64 at its ends and past 2^53 keep every digit through a
    /// generated model, from OData's string form and from a JSON number (which some servers
    /// write), and are written back as the same strings.
    @Test func decimalsAndInt64KeepEveryDigit() throws {
        for text in ["1234567890123456789.0123456789", "-1234567890123456789.0123456789", "0.0000000000000000000000000001"] {
            let expected = try #require(Decimal(string: text))
            for form in ["\"\(text)\"", text] {
                let json = #"{"d":{"personCarMaintenanceID":1,"serviceDate":"\/Date(0)\/","mileage":1,"cost":"# + form + #","createStamp":"\/Date(0)\/"}}"#
                let entry = try ODataJSON.decodeEntity(PersonCarMaintenance.self, from: Data(json.utf8), url: url)
                #expect(entry.cost == expected, "\(form) read as \(entry.cost)")
                let written = String(decoding: try ODataJSON.makeEncoder().encode(entry), as: UTF8.self)
                #expect(written.contains(#""cost":""# + text + #"""#), "\(form) written as \(written)")
            }
        }
        struct Big: Codable {
            var value: Int64
            enum CodingKeys: CodingKey { case value }
            init(from decoder: any Decoder) throws {
                value = try decoder.container(keyedBy: CodingKeys.self).decodeOData(Int64.self, forKey: .value)
            }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encodeOData(value, forKey: .value)
            }
        }
        let values: [Int64] = [Int64.min, Int64.max, 9_007_199_254_740_993, -9_007_199_254_740_993]
        for value in values {
            let text = String(value)
            for form in ["\"" + text + "\"", text] {
                let json: String = #"{"d":{"value":"# + form + "}}"
                let big = try ODataJSON.decodeEntity(Big.self, from: Data(json.utf8), url: url)
                #expect(big.value == value, "\(form) read as \(big.value)")
                let written = String(decoding: try ODataJSON.makeEncoder().encode(big), as: UTF8.self)
                #expect(written == #"{"value":""# + text + #""}"#)
            }
        }
    }

    @Test func writesUseODataForms() throws {
        let entry = PersonCarMaintenance(serviceDate: Date(timeIntervalSince1970: 1_257_008_908.44), mileage: 12,
                                         cost: Decimal(string: "49.95")!, createStamp: Date(timeIntervalSince1970: 0))
        let json = try #require(String(data: try ODataJSON.makeEncoder().encode(entry), encoding: .utf8))
        #expect(json.contains(#""cost":"49.95""#))
        #expect(json.contains(#""serviceDate":"\/Date(1257008908440)\/""#))
        #expect(json.contains(#""technician":null"#))
        // The key is the server's to assign.
        #expect(!json.contains("personCarMaintenanceID"))
    }

    @Test func handWrittenModelsReadDatesThroughTheDecoder() throws {
        struct Plain: Decodable { var createDate: Date; var firstName: String }
        let person = try ODataJSON.decodeEntity(Plain.self, from: Data(BlogFixture.person1Expanded.utf8), url: url)
        #expect(person.createDate == Date(timeIntervalSince1970: 1_257_008_908.440))
    }

    @Test(arguments: [
        ("/Date(1257008908440)/", 1_257_008_908.440),
        ("/Date(-1000)/", -1.0),
        // With an offset the milliseconds are the clock time there: 18:08:28.44+01:00 is 17:08:28.44Z.
        ("/Date(1257012508440+0060)/", 1_257_008_908.440),
        ("/Date(1256990908440-0300)/", 1_257_008_908.440),
        ("2009-10-31T17:08:28.44Z", 1_257_008_908.440),
        ("2009-10-31T17:08:28.44", 1_257_008_908.440),
        ("2009-10-31T19:08:28.44+02:00", 1_257_008_908.440),
    ])
    func datesParse(text: String, seconds: Double) throws {
        let date = try #require(ODataDate.parse(text))
        #expect(abs(date.timeIntervalSince1970 - seconds) < 0.0005)
    }

    @Test func dateTimeOffsetsKeepTheirOffsetBothWays() throws {
        // 2012-03-04T05:06:07+05:30, as pyodata and Olingo V2 write it.
        let json = #"{"d":{"at":"\/Date(1330837567000+0330)\/","west":"\/Date(1330837567000-0180)\/","iso":"2012-03-04T05:06:07.250+05:30"}}"#
        struct Stamps: Codable { var at: ODataDateTimeOffset; var west: ODataDateTimeOffset; var iso: ODataDateTimeOffset }
        let stamps = try ODataJSON.decodeEntity(Stamps.self, from: Data(json.utf8), url: url)
        #expect(stamps.at.offsetMinutes == 330)
        #expect(stamps.at.date == Date(timeIntervalSince1970: 1_330_837_567 - 330 * 60))
        #expect(stamps.at.isoText == "2012-03-04T05:06:07+05:30")
        #expect(stamps.west.offsetMinutes == -180)
        #expect(stamps.west.isoText == "2012-03-04T05:06:07-03:00")
        #expect(stamps.iso.offsetMinutes == 330)
        #expect(stamps.iso.isoText == "2012-03-04T05:06:07.250+05:30")
        #expect(ODataDate.format(stamps.at) == "/Date(1330837567000+0330)/")
        #expect(ODataDate.format(stamps.west) == "/Date(1330837567000-0180)/")
        #expect(stamps.at.odataLiteralText == "datetimeoffset'2012-03-04T05:06:07+05:30'")
        let again = try ODataJSON.makeDecoder().decode(Stamps.self, from: ODataJSON.makeEncoder().encode(stamps))
        #expect(again.at == stamps.at && again.west == stamps.west && again.iso == stamps.iso)
    }

    @Test func malformedDatesAreRejected() {
        #expect(ODataDate.parse("/Date(abc)/") == nil)
        #expect(ODataDate.parse("yesterday") == nil)
        #expect(ODataDate.format(Date(timeIntervalSince1970: 1_257_008_908.44)) == "/Date(1257008908440)/")
    }

    @Test func payloadErrorsSayWhatIsWrong() throws {
        #expect {
            try ODataPayload(data: Data("<html>oops</html>".utf8), from: url)
        } throws: { error in
            guard case .unexpectedPayload(_, let reason) = error as? RestConnectionError else { return false }
            return reason.contains("not JSON")
        }
        #expect(throws: RestConnectionError.self) { try ODataPayload(data: Data(#"{"x":1}"#.utf8), from: url) }
        #expect {
            try ODataJSON.decodeEntity(Person.self, from: Data(#"{"d":{"personID":"one"}}"#.utf8), url: url)
        } throws: { error in
            guard case .unexpectedPayload(_, let reason) = error as? RestConnectionError else { return false }
            return reason.contains("personID")
        }
    }

    @Test func untypedBodiesWriteAsJSON() {
        let body: JSONValue = ["firstName": "Ada", "age": 36, "ratio": 0.5, "active": true, "ssn": nil, "tags": ["a"]]
        #expect(body.description == #"{"active":true,"age":36,"firstName":"Ada","ratio":0.5,"ssn":null,"tags":["a"]}"#)
        #expect(JSONValue.string("say \"hi\"\n").description == #""say \"hi\"\n""#)
    }

    @Test func odataErrorBodyDecodes() throws {
        let body = #"{"error":{"code":"NotFound","message":{"lang":"en-US","value":"Resource not found for the segment 'Person(42)'."}}}"#
        let error = try #require(ODataError.decode(from: Data(body.utf8)))
        #expect(error.code == "NotFound")
        #expect(error.language == "en-US")
        #expect(error.message == "Resource not found for the segment 'Person(42)'.")
        #expect(ODataError.decode(from: Data("not json".utf8)) == nil)
    }

    @Test func keyLiteralsAreURISafe() {
        #expect(Person.uri(personID: 42) == "Person(42)")
        #expect("O'Brien".odataLiteral == "'O''Brien'")
        #expect("a b/c".odataLiteral == "'a%20b%2Fc'")
        #expect(Int64(12).odataLiteral == "12L")
        #expect(Decimal(string: "1.5")!.odataLiteral == "1.5M")
        #expect(Date(timeIntervalSince1970: 1_257_008_908.44).odataLiteral == "datetime'2009-10-31T17:08:28.440'")
    }

    @Test func nameSearchFilterEscapesQuotes() {
        #expect(DealerService.nameFilter("O'Br").text ==
            "(substringof('o''br',tolower(lastName))) or (substringof('o''br',tolower(firstName)))")
    }

    @Test func tablesAlignColumns() {
        var table = TextTable([("ID", .right), ("Name", .left)])
        table.add(["1", "Samson, Bob"])
        table.add(["12", "Li, Wei"])
        #expect(table.render() == ["ID  Name", " 1  Samson, Bob", "12  Li, Wei"])
    }
}
