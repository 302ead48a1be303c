import Foundation

/// What the commands and the browser print, as lines. `numbered` adds the pick numbers `browse` uses.
enum DealerViews {
    static func people(_ page: DealerService.PeoplePage, numbered: Bool = false) -> [String] {
        guard !page.people.isEmpty else {
            return [page.skip > 0 ? "No more people." : "No people found."]
        }
        var table = TextTable((numbered ? [("#", .right)] : []) + [("ID", .right), ("Name", .left)])
        for (i, person) in page.people.enumerated() {
            table.add((numbered ? ["\(i + 1)."] : []) + [String(person.personID), DealerFormat.name(person)])
        }
        var lines = table.render(width: Terminal.columns)
        if let total = page.totalCount {
            let first = page.skip + 1
            let last = page.skip + page.people.count
            lines.append("")
            lines.append("People \(first)-\(last) of \(total).")
        }
        return lines
    }

    static func cars(of person: Person, numbered: Bool = false) -> [String] {
        var lines = ["\(DealerFormat.name(person)) (person \(person.personID))", ""]
        let cars = person.personCar ?? []
        guard !cars.isEmpty else {
            return lines + ["No cars."]
        }
        var table = TextTable((numbered ? [("#", .right)] : [])
            + [("ID", .right), ("Make", .left), ("Model", .left), ("Built", .left), ("Owned since", .left)])
        for (i, personCar) in cars.enumerated() {
            table.add((numbered ? ["\(i + 1)."] : []) + [
                String(personCar.personCarID), personCar.car?.make ?? "-", personCar.car?.model ?? "-",
                DealerFormat.day(personCar.car?.manufactureDate), DealerFormat.day(personCar.createStamp),
            ])
        }
        lines += table.render(width: Terminal.columns)
        if !numbered {
            lines += ["", "Maintenance of a car: dealer maintenance <ID>"]
        }
        return lines
    }

    static func maintenance(of personCar: PersonCar) -> [String] {
        let owner = personCar.person.map { ", owned by \(DealerFormat.name($0))" } ?? ""
        var lines = ["\(DealerFormat.car(personCar.car))\(owner) (PersonCar \(personCar.personCarID))", ""]
        let records = (personCar.personCarMaintenance ?? []).sorted {
            ($0.serviceDate, $0.personCarMaintenanceID) < ($1.serviceDate, $1.personCarMaintenanceID)
        }
        guard !records.isEmpty else {
            return lines + ["No maintenance recorded."]
        }
        var table = TextTable([("Date", .left), ("Mileage", .right), ("Job", .left), ("Category", .left),
                               ("Cost", .right), ("Technician", .left), ("Notes", .left)])
        var total = Decimal(0)
        for record in records {
            total += record.cost
            table.add([
                DealerFormat.day(record.serviceDate), DealerFormat.count(record.mileage),
                record.maintenance?.description ?? "-", record.maintenance?.category ?? "-",
                DealerFormat.money(record.cost), record.technician ?? "-", record.notes ?? "",
            ])
        }
        lines += table.render(width: Terminal.columns)
        lines.append("")
        lines.append("\(records.count) record\(records.count == 1 ? "" : "s"), total cost \(DealerFormat.money(total)).")
        return lines
    }
}
