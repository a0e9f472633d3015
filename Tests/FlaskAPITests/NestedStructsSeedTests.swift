import FlaskAPI
import Foundation
import XCTest

/// The seed README's "Nested Structs" sample is itself an XCTest; here it is, adapted only where
/// noted: the 2-second wait before reading the archive became a flush of the bus and the archiver.
final class NestedStructsSeedTests: XCTestCase {
    func testStruct() {

        let expectation = self.expectation(description: "testStruct")
        let expectation2 = self.expectation(description: "testStruct")
        let expectation3 = self.expectation(description: "testStruct")

        struct nestedTestStruct: Codable {
            var foo = "bar"
            var object = FlaskNSRef(NSObject())
        }

        struct testStruct: Codable {
            var counter = 10
            var nest = nestedTestStruct()
        }

        struct state: State {
            var info = testStruct()
        }

        let NAME = "substanceTest\( NSDate().timeIntervalSince1970)"
        let mySubstance = Flask.newSubstance(definedBy: state.self, named: NAME, archive: false)
        mySubstance.shouldArchive = true

        let owner: TestOwner = TestOwner()
        let reactor = Flask.reactor(attachedTo: owner, mixing: mySubstance)

        reactor.handler = { owner, reaction in

            mySubstance.archiveNow()

            reaction.on(
                "info",
                { (change) in
                    expectation.fulfill()
                })
            reaction.on(
                "info.counter",
                { (change) in
                    expectation2.fulfill()
                })
            reaction.on(
                "info.nest.foo",
                { (change) in
                    expectation3.fulfill()
                })
        }

        reactor.mix(mySubstance) { (substance) in
            substance.prop.info.counter = 90
            substance.prop.info.nest.foo = "mutated"
        }.andReact()

        wait(for: [expectation, expectation2, expectation3], timeout: 2)

        let expectation4 = self.expectation(description: "must preserve after archive")

        Flask.bus.perform {
            Archiver.shared.flush()
            let archivedSubstance = Flask.newSubstance(definedBy: state.self, named: NAME, archive: true)
            XCTAssert(archivedSubstance.state.info.nest.foo == "mutated", "Must preserve value")
            expectation4.fulfill()
        }

        wait(for: [expectation4], timeout: 4)
        mySubstance.purgeArchive()
        Flask.detachReactor(from: owner)
    }
}
