import Foundation

/// The interactive drill-down behind `dealer browse`: a stack of screens, read from standard input
/// one line at a time (edited on a terminal, see `LineEditor`), so it works in any terminal and
/// from a script.
struct DealerBrowser {
    private enum Screen {
        case people(skip: Int, search: String?)
        case cars(personID: Int32)
        case maintenance(personCarID: Int32)
    }

    /// What a screen offers: the screens its numbers lead to (and the IDs shown for them), how
    /// many rows it showed, and whether there are more pages.
    private struct Offer {
        var choices: [Screen] = []
        var ids: [Int32] = []
        var rowsShown = 0
        var hasNextPage = false
        var hasPreviousPage = false
    }

    /// What the user typed, understood.
    private enum Command: Equatable {
        case pick(Int), next, previous, search(String), back, quit
    }

    let service: DealerService
    let pageSize: Int
    private let lineEditor = LineEditor()
    private var stack: [Screen] = [.people(skip: 0, search: nil)]

    init(service: DealerService, pageSize: Int) {
        self.service = service
        self.pageSize = pageSize
    }

    /// Runs until `q` or the end of input. A failed request is shown and the browser stays on the
    /// screen it was on; only a failure of the very first screen ends it.
    mutating func run() async throws(DealerFailure) {
        var current: (stack: [Screen], offer: Offer)?
        while let screen = stack.last {
            let offer: Offer
            do {
                offer = try await show(screen)
            } catch {
                guard let previous = current else { throw error }
                Terminal.printError(error.description)
                stack = previous.stack
                offer = previous.offer
            }
            current = (stack, offer)
            guard let command = readCommand(offer, on: stack.last!) else { return }
            switch command {
            case .quit:
                return
            case .back:
                stack.removeLast()
                if stack.isEmpty { return }
            case .pick(let number):
                stack.append(offer.choices[number - 1])
            case .next, .previous:
                guard case .people(let skip, let search) = stack.last! else { break }
                // Forward by the rows actually shown, so none is ever passed over.
                let moved = command == .next ? skip + offer.rowsShown : max(0, skip - pageSize)
                stack[stack.count - 1] = .people(skip: moved, search: search)
            case .search(let text):
                stack[stack.count - 1] = .people(skip: 0, search: text.isEmpty ? nil : text)
            }
            Terminal.print()
        }
    }

    /// Prints a screen and returns what it offers.
    private func show(_ screen: Screen) async throws(DealerFailure) -> Offer {
        switch screen {
        case .people(let skip, let search):
            let page = try await service.people(search: search, top: pageSize, skip: skip)
            if let search { Terminal.print("Search: \(search)") }
            DealerViews.people(page, numbered: true).forEach { Terminal.print($0) }
            // Without a count, a full page may have a next one.
            let seen = skip + page.people.count
            let hasNext = page.totalCount.map { seen < $0 } ?? (page.people.count == pageSize)
            return Offer(choices: page.people.map { .cars(personID: $0.personID) }, ids: page.people.map(\.personID),
                         rowsShown: page.people.count, hasNextPage: hasNext, hasPreviousPage: skip > 0)
        case .cars(let personID):
            let (person, _) = try await service.personWithCars(personID)
            DealerViews.cars(of: person, numbered: true).forEach { Terminal.print($0) }
            let cars = person.personCar ?? []
            return Offer(choices: cars.map { .maintenance(personCarID: $0.personCarID) }, ids: cars.map(\.personCarID),
                         rowsShown: cars.count)
        case .maintenance(let personCarID):
            let (personCar, _) = try await service.carWithMaintenance(personCarID)
            DealerViews.maintenance(of: personCar).forEach { Terminal.print($0) }
            return Offer()
        }
    }

    /// Prompts until the input makes sense here; nil at the end of input.
    private func readCommand(_ offer: Offer, on screen: Screen) -> Command? {
        let choices = offer.choices
        let onPeople: Bool
        if case .people = screen { onPeople = true } else { onPeople = false }
        var help: [String] = []
        if !choices.isEmpty {
            let range = choices.count == 1 ? "1" : "1-\(choices.count)"
            help.append("\(range) (the # column) or an ID: pick a \(onPeople ? "person" : "car")")
        }
        if offer.hasNextPage { help.append("n: next page") }
        if offer.hasPreviousPage { help.append("p: previous page") }
        if onPeople { help.append("/text: search") }
        if stack.count > 1 { help.append("b: back") }
        help.append("q: quit")
        Terminal.print(help.joined(separator: ", "))
        while true {
            guard let line = lineEditor.readLine(prompt: "> ") else {
                Terminal.print()
                return nil
            }
            let input = line.trimmingCharacters(in: .whitespaces)
            let word = input.lowercased()
            if ["q", "quit", "exit"].contains(word) { return .quit }
            if stack.count > 1, ["b", "back"].contains(word) { return .back }
            if onPeople, ["n", "next"].contains(word) {
                if offer.hasNextPage { return .next }
                Terminal.print("This is the last page.")
                continue
            }
            if onPeople, ["p", "prev", "previous"].contains(word) {
                if offer.hasPreviousPage { return .previous }
                Terminal.print("This is the first page.")
                continue
            }
            if ["?", "h", "help"].contains(word) {
                Terminal.print(help.joined(separator: ", "))
                continue
            }
            if onPeople, input.hasPrefix("/") {
                return .search(String(input.dropFirst()).trimmingCharacters(in: .whitespaces))
            }
            if let number = Int(input), !choices.isEmpty {
                if (1...choices.count).contains(number) { return .pick(number) }
                // Not a row number: the ID column's value is understood too.
                if let row = offer.ids.firstIndex(of: Int32(clamping: number)) { return .pick(row + 1) }
            }
            if input.isEmpty { continue }
            let range = choices.isEmpty ? "" : "a row number from 1 to \(choices.count), an ID shown, or "
            Terminal.print("Not understood: \(input). Type \(range)one of the letters above.")
        }
    }
}
