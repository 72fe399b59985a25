/**
 * The crash test (test/consumers/crash-scenario.ts) on a Redis Cluster of three masters of its own.
 */
import { crashScenario } from './crash-scenario.ts';

crashScenario('redis-cluster');
