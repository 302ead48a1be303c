import Foundation

/// How values read in the terminal.
enum DealerFormat {
    private static let utc = TimeZone(identifier: "UTC")!

    /// `2009-10-31`: OData V2 dates carry no zone, so they are shown as the server wrote them (UTC).
    static func day(_ date: Date?) -> String {
        guard let date else { return "-" }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = utc
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
    }

    /// `1,234.50`.
    static func money(_ amount: Decimal) -> String {
        let formatter = NumberFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.numberStyle = .decimal
        formatter.usesGroupingSeparator = true
        formatter.groupingSeparator = ","
        formatter.decimalSeparator = "."
        formatter.minimumFractionDigits = 2
        formatter.maximumFractionDigits = 2
        return formatter.string(from: amount as NSDecimalNumber) ?? "\(amount)"
    }

    /// `12,345`.
    static func count(_ number: Int32) -> String {
        let formatter = NumberFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.numberStyle = .decimal
        formatter.usesGroupingSeparator = true
        formatter.groupingSeparator = ","
        return formatter.string(from: NSNumber(value: number)) ?? "\(number)"
    }

    /// `Samson, Bob`, as the blog listed people.
    static func name(_ person: Person) -> String {
        "\(person.lastName), \(person.firstName)"
    }

    /// `Ford Explorer`.
    static func car(_ car: Car?) -> String {
        guard let car else { return "(unknown car)" }
        return "\(car.make) \(car.model)"
    }
}
