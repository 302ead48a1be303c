import Foundation

/// The interactive drill-down behind `dealer browse`: a stack of screens, read from standard input
/// one line at a time, so it works in any terminal and from a script.
struct DealerBrowser {
    private enum Screen {
        case people(skip: Int, search: String?)
        case cars(personID: Int32)
        case maintenance(personCarID: Int32)
    }

    /// What a screen offers: the screens its numbers lead to, and whether there are more pages.
    private struct Offer {
        var choices: [Screen] = []
        var hasNextPage = false
        var hasPreviousPage = false
    }

    /// What the user typed, understood.
    private enum Command: Equatable {
        case pick(Int), next, previous, search(String), back, quit
    }

    let service: DealerService
    let pageSize: Int
    private var stack: [Screen] = [.people(skip: 0, search: nil)]

    init(service: DealerService, pageSize: Int) {
        self.service = service
        self.pageSize = pageSize
    }

    mutating func run() async throws(DealerFailure) {
        while let screen = stack.last {
            let offer = try await show(screen)
            guard let command = readCommand(offer, on: screen) else { return }
            switch command {
            case .quit:
                return
            case .back:
                stack.removeLast()
                if stack.isEmpty { return }
            case .pick(let number):
                stack.append(offer.choices[number - 1])
            case .next, .previous:
                guard case .people(let skip, let search) = screen else { break }
                let moved = command == .next ? skip + pageSize : max(0, skip - pageSize)
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
            return Offer(choices: page.people.map { .cars(personID: $0.personID) },
                         hasNextPage: hasNext, hasPreviousPage: skip > 0)
        case .cars(let personID):
            let (person, _) = try await service.personWithCars(personID)
            DealerViews.cars(of: person, numbered: true).forEach { Terminal.print($0) }
            return Offer(choices: (person.personCar ?? []).map { .maintenance(personCarID: $0.personCarID) })
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
        if !choices.isEmpty { help.append(onPeople ? "number: pick a person" : "number: pick a car") }
        if offer.hasNextPage { help.append("n: next page") }
        if offer.hasPreviousPage { help.append("p: previous page") }
        if onPeople { help.append("/text: search") }
        if stack.count > 1 { help.append("b: back") }
        help.append("q: quit")
        Terminal.print(help.joined(separator: ", "))
        while true {
            Terminal.prompt("> ")
            guard let line = Terminal.readLine() else {
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
            if let number = Int(input), (1...max(choices.count, 1)).contains(number), !choices.isEmpty {
                return .pick(number)
            }
            if input.isEmpty { continue }
            let range = choices.isEmpty ? "" : "a number from 1 to \(choices.count), or "
            Terminal.print("Not understood: \(input). Type \(range)one of the letters above.")
        }
    }
}
