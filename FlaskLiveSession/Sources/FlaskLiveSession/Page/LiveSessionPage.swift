/// The live session's page: one document, its style and script inline (the server's
/// Content-Security-Policy allows nothing else), that asks the session for new mixes when its
/// WebSocket says there are some (four times a second without it) and shows them.
///
/// It loads the newest 500 mixes first, then the earlier ones 20,000 at a time, keeps what it was
/// sent (as many as the session keeps) and draws the last 1,000 that match the filter, so that it
/// is usable at once and stays responsive with 100,000 mixes recorded: finding one among those
/// takes a filter.
enum LiveSessionPage {
    /// The page: `LiveSessionPage.html` beside this file (an HTML file, so that its style and
    /// script are read and checked as what they are), embedded in the module at build time.
    static let html = String(decoding: PackageResources.LiveSessionPage_html, as: UTF8.self)
}
