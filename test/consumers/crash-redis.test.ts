/**
 * The crash test (test/consumers/crash-scenario.ts) on one Redis of its own.
 */
import { crashScenario } from './crash-scenario.ts';

crashScenario('redis');
