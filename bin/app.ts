#!/usr/bin/env -S npx tsx
/**
 * The CDK app: one environment per synth, chosen with `-c env=test|live` (default test).
 *   npx cdk synth -c env=test --quiet
 *   npx cdk deploy -c env=live --all
 * See docs/deployment.md.
 */
import { App } from 'aws-cdk-lib';
import { buildApp } from '../lib/app';

buildApp(new App());
