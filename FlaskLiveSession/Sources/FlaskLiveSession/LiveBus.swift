import FlaskTools
import FluxBus
import Foundation
import Substances

/// One bus a live session records: its journal, the substances a jump on it moves, and the mix it
/// travelled to. Each bus numbers its own mixes, so jumps, steps and the present are a bus's own.
final class LiveBus: Sendable {
    let bus: Flux
    let journal: MixJournal
    /// The substances given to the session that mix on this bus.
    let substances: [any AnySubstance]
    /// The mix whose states the bus's substances were moved to, while they are in the past.
    let travelledTo = LockedValue<UInt64?>(nil)

    init(bus: Flux, journal: MixJournal, substances: [any AnySubstance]) {
        self.bus = bus
        self.journal = journal
        self.substances = substances
    }

    /// Sets the substances to their states after `serial`: see `LiveSession.travel(to:on:)`.
    func travel(to serial: UInt64, fileID: StaticString, line: UInt, function: StaticString) async
        -> MixJournal.Travel
    {
        // One copy of the ring: the jump reads it, and the present is its last mix (the jump's own
        // entry, recorded after, is a jump, never the present).
        let document = journal.document
        let travel = await MixJournal.travel(
            document, to: serial, substances: substances, on: bus, fileID: fileID, line: line, function: function)
        // In the past only once something moved (not for a mix the journal no longer keeps), and
        // not at the last mix the app made: that is the present.
        if !travel.moved.isEmpty {
            travelledTo.withLock { $0 = serial == Self.present(in: document) ? nil : serial }
        }
        return travel
    }

    /// The serial of the last mix the app made itself (a jump is not one).
    private static func present(in document: MixJournal.Document) -> UInt64? {
        document.entries.last(where: { !$0.isTravel })?.serial
    }

    /// Back to the states after the last mix that was not a jump; nil, and nothing recorded, when
    /// the bus is in the present already.
    func returnToPresent(fileID: StaticString, line: UInt, function: StaticString) async -> MixJournal.Travel? {
        guard travelledTo.withLock({ $0 }) != nil else { return nil }
        let document = journal.document
        guard let last = Self.present(in: document) else { return nil }
        let travel = await MixJournal.travel(
            document, to: last, substances: substances, on: bus, fileID: fileID, line: line,
            function: function)
        travelledTo.withLock { $0 = nil }
        return travel
    }

    /// Dispatches the recorded mix `serial` again; why it could not, if it could not.
    func dispatchAgain(_ serial: UInt64, domains: [any Any.Type]) async -> String? {
        guard let entry = journal.entry(serial: serial) else { return "the journal keeps no mix #\(serial)" }
        return await MixJournal.dispatchAgain(
            entry, on: bus, domains: domains, fileID: LiveSession.page, line: 0, function: "Again")?.reason
    }
}
