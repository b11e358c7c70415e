import type { Command } from '../internal/command.js';
import { archiveExport } from './archive.js';
import { audit } from './audit.js';
import { conformance } from './conformance.js';
import { decide } from './decide.js';
import { demo } from './demo.js';
import { deploy } from './deploy.js';
import { doctor } from './doctor.js';
import { energy, energyVerify } from './energy.js';
import { hopRun } from './hop.js';
import { keylogAdd, keylogCreate, keylogInspect, keylogRevoke } from './keylog.js';
import { keygen, pubkey } from './keys.js';
import { logWatch, logWitness } from './log.js';
import { dashElementCommand, hlsTagCommand } from './mappings.js';
import { policyCompile, policyInspect } from './policy.js';
import { decisionInspect, recordInspect, recordSign } from './record.js';
import { report } from './report.js';
import { roomCreate, roomInspect } from './room.js';
import { serve } from './serve.js';
import { verify } from './verify.js';
import { windowCommand } from './window.js';

/** Every command, in the order of the help. */
export const COMMANDS: readonly Command[] = [
  keygen,
  pubkey,
  roomCreate,
  roomInspect,
  keylogCreate,
  keylogAdd,
  keylogRevoke,
  keylogInspect,
  policyCompile,
  policyInspect,
  hlsTagCommand,
  dashElementCommand,
  windowCommand,
  recordSign,
  recordInspect,
  report,
  decide,
  decisionInspect,
  verify,
  audit,
  archiveExport,
  // `energy verify` before `energy`: the longer name is matched first.
  energyVerify,
  energy,
  logWatch,
  logWitness,
  conformance,
  serve,
  doctor,
  deploy,
  demo,
  hopRun,
];
