// The style and the script of the timeline page (`MixJournal+Timeline.swift`), inlined in it.
// They are files beside this one, `timeline.css` and `timeline.js` (read and checked as what they
// are), embedded in the module's code at build time: no bundle is looked for at run time, so a
// `flask-journal` moved away from its build folder writes the page as it did.
extension TimelinePage {
    /// The page's style: system fonts, the rows on the left, the state panel sticky on the right.
    static let style = String(decoding: PackageResources.timeline_css, as: UTF8.self)

    /// The page's script: reads the data once, rebuilds the states after the selected mix as
    /// `MixJournal.Document.states(after:)` does, steps, filters (by hiding rows), and follows
    /// `#mix=N`. It writes `performance.now()` at `DOMContentLoaded` into `#ready-ms`.
    static let script = String(decoding: PackageResources.timeline_js, as: UTF8.self)
}
