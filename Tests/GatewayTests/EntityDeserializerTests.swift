import EDM
import Foundation
@testable import ODataSerialization
import Testing

/// The verbose-JSON request body reader on its own: every simple type, the facets, the
/// navigation forms (bindings, deep insert), `$links` and property bodies, and the messages.
@Suite struct EntityDeserializerTests {
    static let carDealer = try! ModelLoader.load(contentsOf: TestGateway.carDealerSchema)
    static let inventory = try! ModelLoader.load(contentsOf: TestGateway.fixtures.appendingPathComponent("Inventory.edmx"))
    let deserializer = EntityDeserializer(serviceRoot: "http://host:8080/CarDealer.svc/")

    var person: EntityType { Self.carDealer.entitySet(named: "Person")!.entityType }
    var personCar: EntityType { Self.carDealer.entitySet(named: "PersonCar")!.entityType }
    var item: EntityType { Self.inventory.entitySet(named: "Items")!.entityType }

    func payload(_ json: String, _ type: EntityType) throws -> EntityPayload {
        try deserializer.entity(from: Array(json.utf8), of: type)
    }

    func error(_ json: String, _ type: EntityType) -> PayloadError? {
        do throws(PayloadError) {
            _ = try deserializer.entity(from: Array(json.utf8), of: type)
            return nil
        } catch {
            return error
        }
    }

    @Test func everySimpleType() throws {
        let body = #"""
        {"Id":null,"Label":"L","Photo":"AAEC/w==","InStock":false,"Shelf":"7","Arrived":"\/Date(1257008908440)\/",
         "Audited":"\/Date(1257068908440+0060)\/","Price":1.5e2,"Weight":"INF","Ratio":0.5,"Serial":"C9A4B6E2-1F0D-4C53-9A77-0123456789AB",
         "Small":-1,"Count":70000,"Big":"9007199254740993","Tiny":-5,"PickTime":"PT13H20M30.25S"}
        """#
        let values = try payload(body, item).values
        #expect(values["Id"] == nil, "a null identity key is left for the store")
        #expect(values["Photo"] == .binary([0, 1, 2, 255]))
        #expect(values["InStock"] == .boolean(false))
        #expect(values["Shelf"] == .integer(7), "integers may come as numeric strings")
        #expect(values["Arrived"] == .dateTime(1257008908440))
        #expect(values["Audited"] == .dateTimeOffset(1257068908440 - 3_600_000, offsetMinutes: 60), "the milliseconds are the clock time at +01:00")
        #expect(values["Price"] == .decimal("150.000"), "an exponent is applied exactly, and the Scale of 3 is kept")
        #expect(values["Weight"] == .double(.infinity))
        #expect(values["Ratio"] == .double(0.5))
        #expect(values["Serial"] == .guid("c9a4b6e2-1f0d-4c53-9a77-0123456789ab"))
        #expect(values["Big"] == .integer(9007199254740993), "no trip through Double")
        #expect(values["PickTime"] == .time(48_030_250))
        #expect(values["Label"] == .string("L"))
    }

    @Test func datesAndTimesInTheirTextForms() throws {
        let arrived = item.property(named: "Arrived")!
        let pick = item.property(named: "PickTime")!
        #expect(try PropertyValueDecoder.decodeText("2009-11-01T12:00:00", for: arrived) == .dateTime(1257076800000))
        #expect(try PropertyValueDecoder.decodeText("2009-11-01T13:00:00+01:00", for: arrived) == .dateTime(1257076800000))
        #expect(try PropertyValueDecoder.decodeText("2009-11-01T12:00:00.1234567Z", for: arrived) == .dateTime(1257076800123))
        #expect(try PropertyValueDecoder.decodeText("2009-11-01", for: arrived) == .dateTime(1257033600000))
        #expect(try PropertyValueDecoder.decodeText("/Date(-1000)/", for: arrived) == .dateTime(-1000))
        #expect(try PropertyValueDecoder.decodeText("13:20", for: pick) == .time(48_000_000))
        #expect(try PropertyValueDecoder.decodeText("13:20:30.5", for: pick) == .time(48_030_500))
        for bad in ["2009-02-30T00:00:00", "0000-01-01T00:00:00", "2009-11-01T24:00:00", "/Date(1)", "/Date(1+99999)/", "yesterday"] {
            #expect(throws: PayloadError.self, "\(bad)") { try PropertyValueDecoder.decodeText(bad, for: arrived) }
        }
        for bad in ["PT24H", "-PT1H", "25:00", "P", "13"] {
            #expect(throws: PayloadError.self, "\(bad)") { try PropertyValueDecoder.decodeText(bad, for: pick) }
        }
    }

    /// pyodata, Olingo V2 and datajs write `/Date(ms±mmmm)/` with `ms` the local clock time at
    /// the offset: both forms of one value must mean the same instant and offset.
    @Test func jsonDateOffsetsAreLocalClockTimeAsClientsWriteThem() throws {
        let audited = item.property(named: "Audited")!
        let iso = try PropertyValueDecoder.decodeText("2012-03-04T05:06:07+05:30", for: audited)
        #expect(iso == .dateTimeOffset(1_330_817_767_000, offsetMinutes: 330))
        // 1330837567000 is 2012-03-04T05:06:07 on the clock; the offset says where.
        #expect(try PropertyValueDecoder.decodeText("/Date(1330837567000+0330)/", for: audited) == iso)
        #expect(try PropertyValueDecoder.decodeText("/Date(1330837567000-0330)/", for: audited)
                == PropertyValueDecoder.decodeText("2012-03-04T05:06:07-05:30", for: audited))
        #expect(try PropertyValueDecoder.decodeText("/Date(1330837567000)/", for: audited)
                == PropertyValueDecoder.decodeText("2012-03-04T05:06:07Z", for: audited))
        // Within the supported range on the clock but not as an instant.
        #expect(throws: PayloadError.self) { try PropertyValueDecoder.decodeText("/Date(-62135596800000+0060)/", for: audited) }
    }

    @Test func decimalsAreExact() {
        #expect(DecimalText("0012.3400")?.canonicalText == "12.34")
        #expect(DecimalText("-0.0")?.canonicalText == "0")
        #expect(DecimalText("1.25e-3")?.canonicalText == "0.00125")
        #expect(DecimalText("+.5")?.canonicalText == "0.5")
        #expect(DecimalText("12345678901234567890.123456789")?.canonicalText == "12345678901234567890.123456789")
        #expect(DecimalText("1.5")?.text(scale: 3) == "1.500")
        for bad in ["", ".", "1e", "1e99999", "--1", "1.2.3", "0x10", "1 "] { #expect(DecimalText(bad) == nil, "\(bad)") }
        #expect(DecimalText("123.45")?.facetViolation(precision: 5, scale: 2) == nil)
        #expect(DecimalText("1234.5")?.facetViolation(precision: 5, scale: 2)?.contains("Precision 5") == true)
        #expect(DecimalText("1.234")?.facetViolation(precision: 5, scale: 2)?.contains("Scale of 2") == true)
    }

    @Test func messagesNameThePropertyAndTheProblem() {
        let cases: [(String, EntityType, [String])] = [
            (#"{"firstName":1}"#, person, ["'firstName'", "Edm.String", "not a number"]),
            (#"{"lastName":null}"#, person, ["'lastName'", "not nullable"]),
            (#"{"ssn":"123456789012"}"#, person, ["'ssn'", "MaxLength of 11"]),
            (#"{"shoeSize":44}"#, person, ["'shoeSize'", "does not exist", "edmexampleModel.Person"]),
            (#"{"Shelf":300}"#, item, ["'Shelf'", "out of range"]),
            (#"{"Photo":"AAE"}"#, item, ["'Photo'", "base64"]),
            (#"{"Serial":"C9A4B6E2-1F0D-4C53-9A77-0123456789AZ"}"#, item, ["'Serial'", "GUID"]),
            (#"{"InStock":"true"}"#, item, ["'InStock'", "not a string"]),
            (#"{"Price":"12.3456"}"#, item, ["'Price'", "Scale of 3"]),
            (#"{"Count":[1]}"#, item, ["'Count'", "not an array"]),
            (#"{"__metadata":{"type":"edmexampleModel.Car"}}"#, person, ["__metadata.type", "edmexampleModel.Car"]),
            (#"[]"#, person, ["must be a JSON object", "not an array"]),
            (#"{"firstName":"a""#, person, ["malformed JSON", "at byte"]),
            ("", person, ["empty"]),
            (#"{"PersonCar":{"__metadata":{"uri":"PersonCar(1)"}}}"#, person, ["'PersonCar'", "expected an array"]),
            (#"{"Person":[]}"#, personCar, ["'Person'", "not an array"]),
            (#"{"PersonCar":null}"#, person, ["'PersonCar'", "collection"]),
            (#"{"PersonCar":[{"createStamp":"x"}]}"#, person, ["In navigation property 'PersonCar', item 1", "'createStamp'"]),
            (#"{"Person":{"__metadata":{"uri":"Person(1)"},"firstName":"x"}}"#, personCar, ["deep update"]),
        ]
        for (json, type, fragments) in cases {
            guard let error = error(json, type) else {
                Issue.record("\(json) was accepted")
                continue
            }
            for fragment in fragments {
                #expect(error.message.contains(fragment), "\(json): '\(fragment)' not in \(error.message)")
            }
        }
        #expect(error(#"{"firstName":1}"#, person)?.propertyName == "firstName")
    }

    @Test func invalidUTF8IsRefusedWithItsOffset() {
        let bytes: [UInt8] = Array(#"{"firstName":""#.utf8) + [0xED, 0xA0, 0x80] + Array(#""}"#.utf8)
        do throws(PayloadError) {
            _ = try deserializer.entity(from: bytes, of: person)
            Issue.record("an encoded surrogate was accepted")
        } catch {
            #expect(error.message.contains("not valid UTF-8") && error.message.contains("at byte 15"), "\(error.message)")
        }
    }

    @Test func navigationsBindAndInline() throws {
        let body = #"""
        {"d":{"__metadata":{"uri":"PersonCar(5)","type":"edmexampleModel.PersonCar","etag":"W/\"x\""},"createStamp":"\/Date(0)\/",
         "Person":{"__metadata":{"uri":"http://host:8080/CarDealer.svc/Person(1)"}},
         "Car":{"make":"M","model":"N","createStamp":"\/Date(0)\/"},
         "PersonCarMaintenance":{"results":[{"__metadata":{"uri":"$3"}}]}}}
        """#
        let parsed = try payload(body, personCar)
        #expect(parsed.metadataURI == "PersonCar(5)" && parsed.metadataETag == "W/\"x\"")
        #expect(parsed.navigations.map(\.property.name) == ["Person", "Car", "PersonCarMaintenance"])
        guard case .single(.reference(let person))? = parsed.navigation(named: "Person")?.content else { Issue.record("Person"); return }
        #expect(person.segments == ["Person(1)"] && person.entitySetName == "Person" && person.keyText == "1")
        guard case .single(.inline(let car))? = parsed.navigation(named: "Car")?.content else { Issue.record("Car"); return }
        #expect(car.values["make"] == .string("M"))
        guard case .collection(let records)? = parsed.navigation(named: "PersonCarMaintenance")?.content,
              case .reference(let byID)? = records.first else { Issue.record("PersonCarMaintenance"); return }
        #expect(byID.contentID == "3" && byID.segments.isEmpty)

        // What a client echoes from a read says nothing about links.
        let echoed = try payload(#"{"createStamp":"\/Date(0)\/","Car":{"__deferred":{"uri":"PersonCar(1)/Car"}}}"#, personCar)
        #expect(echoed.navigations.isEmpty)
        #expect(echoed.values["personCarID"] == nil, "absent and null differ: MERGE keeps what is absent")
    }

    @Test func entityReferences() throws {
        let root = "http://host:8080/CarDealer.svc/"
        #expect(try EntityReference(uri: "http://proxy/CarDealer.svc/Person(1)/PersonCar?x=1", serviceRoot: root).segments == ["Person(1)", "PersonCar"])
        #expect(try EntityReference(uri: "/CarDealer.svc/Warehouses(Region='a',Code=1)", serviceRoot: root).keyText == "Region='a',Code=1")
        #expect(try EntityReference(uri: "Person(2)", serviceRoot: root).resourcePath == "Person(2)")
        #expect(try EntityReference(uri: "$1/Car", serviceRoot: root).contentID == "1")
        #expect(throws: PayloadError.self) { try EntityReference(uri: "/Other.svc/Person(1)", serviceRoot: root) }
        #expect(throws: PayloadError.self) { try EntityReference(uri: "", serviceRoot: root) }
        #expect(throws: PayloadError.self) { try EntityReference(uri: "$/Car", serviceRoot: root) }
    }

    @Test func linkAndPropertyBodies() throws {
        #expect(try deserializer.link(from: Array(#"{"uri":"Car(3)"}"#.utf8)).segments == ["Car(3)"])
        for bad in [#"{}"#, #"{"uri":3}"#, #"{"uri":"Car(3)","x":1}"#, "[]"] {
            #expect(throws: PayloadError.self, "\(bad)") { try deserializer.link(from: Array(bad.utf8)) }
        }
        let firstName = person.property(named: "firstName")!
        #expect(try deserializer.propertyValue(from: Array(#"{"d":{"firstName":"Al"}}"#.utf8), for: firstName) == .string("Al"))
        #expect(throws: PayloadError.self) { try deserializer.propertyValue(from: Array(#"{"lastName":"Al"}"#.utf8), for: firstName) }
        let photo = item.property(named: "Photo")!
        #expect(try deserializer.rawValue(from: [0xFF, 0x00], for: photo) == .binary([0xFF, 0x00]), "binary $value is the bytes themselves")
        #expect(try deserializer.rawValue(from: Array("true".utf8), for: item.property(named: "InStock")!) == .boolean(true))
        #expect(try deserializer.rawValue(from: [], for: item.property(named: "Label")!) == .string(""))
        #expect(throws: PayloadError.self) { try deserializer.rawValue(from: [], for: item.property(named: "Count")!) }
    }

    @Test func keysAndDefaults() throws {
        let parsed = try payload(#"{"personID":1,"firstName":"x"}"#, person)
        try parsed.checkKey(matches: ["personID": .integer(1)])
        #expect(throws: PayloadError.self) { try parsed.checkKey(matches: ["personID": .integer(2)]) }
        #expect(try EntityDeserializer.defaultValue(for: person.property(named: "ssn")!) == .null)
        #expect(try EntityDeserializer.defaultValue(for: person.property(named: "lastName")!) == nil)
        let defaulted = Property(name: "Level", type: .int16, isNullable: false, defaultValue: "3", columnName: "Level", columnIndex: 0)
        #expect(try EntityDeserializer.defaultValue(for: defaulted) == .integer(3))
    }
}
