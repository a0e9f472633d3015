import FlaskAPI

/// The server's state: how many notes were posted, and the latest few.
struct NotesState: State {
    var count = 0
    var recent: [String] = []
}

/// A note posted by a client.
struct PostNote: FlaskAction {
    let text: String
}

enum NotesMixers: SubstanceMixer {
    case clear
}

/// The notes, archived under `notes`, made with their mixers: no subclass, nothing `@unchecked`.
func makeNotes() -> ReactiveSubstance<NotesState, NotesMixers> {
    ReactiveSubstance<NotesState, NotesMixers>(name: "notes", archive: true) { define in
        define(PostNote.self) { notes, post, react, abort in
            guard !post.text.isEmpty else { return abort() }
            notes.prop.count += 1
            notes.prop.recent.append(post.text)
            if notes.prop.recent.count > 20 { notes.prop.recent.removeFirst() }
            react()
        }
        define(mix: .clear) { notes, _, react, _ in
            notes.prop.recent = []
            react()
        }
    }
}
