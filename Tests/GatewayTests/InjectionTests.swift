import Foundation
import Testing

/// Hostile text in every option is either refused with a 400 or treated as data; the database
/// is untouched either way.
@Suite struct InjectionTests {
    static let payloads = [
        "'; DROP TABLE Person; --",
        "' OR 1=1 --",
        "\" OR \"\"=\"",
        "1); DELETE FROM Person; --",
        "/* comment */",
        "x' UNION SELECT sqlite_version() --",
        "\u{2019} OR 1=1",
        "\u{0000}",
        "Ω≈ç√ 漢字 🚗",
        "%27%20OR%201%3D1",
    ]


    @Test(arguments: TestGateway.engines, payloads)
    func hostileTextIsRefusedOrTreatedAsData(engine: TestGateway.Engine, payload: String) throws {
        let gateway = try TestGateway(engine: engine)
        let quoted = "'" + payload.replacingOccurrences(of: "'", with: "''") + "'"
        let options = ["$filter", "$orderby", "$select", "$expand", "$top", "$skip", "$skiptoken", "$inlinecount", "$format"]
        let encoded = TestGateway.percentEncoded(payload)
        var targets = options.map { "Person?\($0)=\(encoded)" }
        targets += [
            "Person?$filter=" + TestGateway.percentEncoded("lastName eq \(quoted)"),
            "Person?$filter=" + TestGateway.percentEncoded("substringof(\(quoted),lastName)"),
            "Person?$orderby=" + TestGateway.percentEncoded("lastName,\(payload)"),
            "Person(" + TestGateway.percentEncoded(quoted) + ")",
            "Person(" + encoded + ")",
            encoded,
        ]
        var refused = 0
        for target in targets {
            let response = try gateway.get(target)
            #expect([200, 400, 404].contains(response.status), "\(target) -> \(response.status)")
            if response.status == 200 {
                // Treated as data: a quoted payload matches no one.
                if target.contains(quoted), let d = try? response.d() {
                    let rows = (d as? [Any]) ?? ((d as? [String: Any])?["results"] as? [Any]) ?? []
                    #expect(rows.isEmpty, "\(target) matched rows")
                }
            } else {
                refused += 1
                _ = try response.errorMessage()
            }
        }
        #expect(refused > 0, "some of these must be refused")
        #expect(try gateway.get("Person/$count").text == "60")
        if engine == .sqlite {
            #expect(try gateway.openDatabase().rows("PRAGMA integrity_check").first?.first == .text("ok"))
        }
    }
}
