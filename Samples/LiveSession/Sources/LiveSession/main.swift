// A todo list on the shared bus, with the live session view on; the commands it reads are
// counted on a bus of their own, which the view records too (its page has a menu of buses).
//
//     swift run LiveSession
//     http://127.0.0.1:51234/?token=9f2c...     (open it in a browser)
//     add milk                                   (a todo titled "milk")
//     toggle 1                                   (the first todo done, or not)
//     undo                                       (the last change to the todos taken back)
//     state                                      (the app's state, as one JSON line)
//     quit
import FlaskAPI
import FlaskLiveSession
import Foundation

struct TodoState: State {
    struct Todo: Codable, Sendable {
        var title: String
        var done = false
    }
    var todos: [Todo] = []
}

enum TodoMixers: SubstanceMixer { case clear }

struct AddTodo: FlaskAction, Codable {
    let title: String
}

struct ToggleTodo: FlaskAction, Codable {
    /// The todo's number, from 1.
    let number: Int
}

let todos = ReactiveSubstance<TodoState, TodoMixers>(name: "todos") { define in
    define(AddTodo.self) { todos, action, react, _ in
        todos.prop.todos.append(.init(title: action.title))
        react()
    }
    define(ToggleTodo.self) { todos, action, react, abort in
        let index = action.number - 1
        guard todos.prop.todos.indices.contains(index) else { return abort() }
        todos.prop.todos[index].done.toggle()
        react()
    }
    define(mix: .clear) { todos, _, react, _ in
        todos.prop.todos = []
        react()
    }
}

/// Undo for the todos: an undo's row on the page says which mix it undoes.
let history = SubstanceHistory(of: todos)

/// The commands read, counted on a bus of their own.
struct CommandsState: State {
    var read = 0
    var last = ""
}

enum CommandMixers: SubstanceMixer { case read }

let commandsBus = Flux(label: "sample.commands")
let commands = ReactiveSubstance<CommandsState, CommandMixers>(name: "commands", bus: commandsBus) { define in
    define(mix: .read) { commands, payload, react, _ in
        commands.prop.read += 1
        commands.prop.last = payload?["command"] as? String ?? ""
        react()
    }
}

let view = try await LiveSession.start(
    buses: [.shared, commandsBus], substances: [todos, commands], actions: [AddTodo.self, ToggleTodo.self],
    mixers: [TodoMixers.self], printsAddress: false)
/// A line on standard output, written at once (not held in a buffer: a program reading the app's
/// output, CI's browser test, waits for it).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

say(view.address)

let encoder = JSONEncoder()
encoder.outputFormatting = [.sortedKeys]
while let line = readLine() {
    let command = line.split(separator: " ", maxSplits: 1).map(String.init)
    commandsBus.dispatch(CommandMixers.read, payload: ["command": command.first ?? ""])
    switch (command.first, command.count > 1 ? command[1] : nil) {
    case ("add", let title?):
        await Flask.apply(AddTodo(title: title))
    case ("toggle", let number?):
        guard let number = Int(number) else {
            say("toggle takes a number")
            continue
        }
        await Flask.apply(ToggleTodo(number: number))
    case ("undo", nil):
        await history.undo()
    case ("state", nil):
        await Flux.shared.flush()
        say(String(decoding: try encoder.encode(todos.state), as: UTF8.self))
    case ("quit", nil):
        await view.stop()
        exit(0)
    default:
        say("commands: add TITLE, toggle N, undo, state, quit")
    }
}
await view.stop()
