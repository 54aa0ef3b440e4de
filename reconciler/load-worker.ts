/** The worker of loadLightInParallel (load.ts): reads its share of a large file's cubes and answers once. */
import { parentPort, workerData } from "node:worker_threads";
import { readWorkerTask, type WorkerTask } from "./load.js";

parentPort?.postMessage(readWorkerTask(workerData as WorkerTask));
