import { PublishCommand, type SNSClient } from '@aws-sdk/client-sns';

/** A soft-cap warning or guardrail trip, as sent to notification channels (spec 6). */
export interface Notification {
  orgId: string;
  kind: 'soft_cap_warning' | 'guardrail_trip' | 'untracked_spend' | 'governance_change';
  triggerType: string;
  observedValue: number;
  thresholdValue: number;
  message: string;
  at: string;
}

const NOTIFICATION_SUBJECTS: Record<Notification['kind'], string> = {
  soft_cap_warning: 'soft cap reached',
  guardrail_trip: 'guardrail tripped',
  untracked_spend: 'untracked provider spend',
  governance_change: 'a cap was lifted or rates were cut',
};

export interface Notifier {
  notify(n: Notification): Promise<void>;
}

/** SNS topic in AWS (email, chat, and the CloudWatch alarms' topic). */
export class SnsNotifier implements Notifier {
  constructor(
    private readonly client: SNSClient,
    private readonly topicArn: string,
  ) {}

  async notify(n: Notification): Promise<void> {
    await this.client.send(
      new PublishCommand({
        TopicArn: this.topicArn,
        Subject: `Spendguard: ${NOTIFICATION_SUBJECTS[n.kind]}`.slice(0, 100),
        Message: JSON.stringify(n),
        MessageAttributes: { orgId: { DataType: 'String', StringValue: n.orgId } },
      }),
    );
  }
}

/** Locally: POST the JSON to a webhook URL (for example a Slack-compatible endpoint), or nothing. */
export class WebhookNotifier implements Notifier {
  constructor(
    private readonly url: string | undefined,
    private readonly fetchFn: typeof fetch = fetch,
  ) {}

  async notify(n: Notification): Promise<void> {
    if (!this.url) return;
    await this.fetchFn(this.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(n),
      signal: AbortSignal.timeout(5000),
    });
  }
}
