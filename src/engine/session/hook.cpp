#include <cppestimators/session/hook.h>

namespace cppestimators {

EvalRecords* Hook::evaluation_records() { return nullptr; }
const History* Hook::recorded_history() const { return nullptr; }

void Hook::begin(Session&) {}
void Hook::after_create_session(Session&) {}
void Hook::before_run(RunContext&) {}
void Hook::after_run(RunContext&) {}
void Hook::end(Session&) {}

}  // namespace cppestimators
