// The shard's test-only switches (fault injection, a lost alarm), for the test hooks door: the
// doors reach the shard only through the service.
export { loseShardAlarm, setShardFaults } from "../shard/client";
