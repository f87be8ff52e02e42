import {
  agenticSearchCompleted,
  agenticSearchFailed,
  deepSearchCompleted,
  deepSearchFailed,
  phoneEnrichCompleted,
  phoneEnrichFailed,
  searchCompleted,
  searchFailed,
  webhookEventSchema,
  type DeepSearchItem,
  type Lead,
} from '../../../shared/webhooks/events.js';

const lead: Lead = {
  first_name: 'Ada',
  last_name: 'Lovelace',
  full_name: 'Ada Lovelace',
  current_job_title: 'Head of Engineering',
  headline: 'Engineering leader',
  location: 'London, United Kingdom',
  professional_url: 'linkedin.com/in/ada',
  company: { name: 'Analytical Engines', domain: 'engines.example', professional_url: null, industry: 'Software', employee_count: 120 },
};

const deepItem: DeepSearchItem = {
  ...lead,
  email: 'ada@engines.example',
  experience: [{ company: 'Analytical Engines', title: 'Head of Engineering', date_range: '2021 - present' }],
  score: 87,
};

describe('webhook event builders', () => {
  it('builds search events with the SPEC failure messages', () => {
    expect(searchCompleted('dj_1', [lead], 1)).toEqual({ id: 'dj_1', event_type: 'search.completed', results: [lead], total_returned: 1 });
    expect(searchCompleted('dj_2', [], 0)).toEqual({ id: 'dj_2', event_type: 'search.completed', results: [], total_returned: 0 });
    expect(searchFailed('dj_3', 'invalid_input')).toEqual({
      id: 'dj_3',
      event_type: 'search.failed',
      error: { code: 'invalid_input', message: 'invalid search query' },
    });
    expect(searchFailed('dj_4', 'error').error).toEqual({ code: 'error', message: 'people search failed, retry' });
  });

  it('builds deep-search events with the SPEC failure messages', () => {
    expect(deepSearchCompleted('dj_5', [deepItem], 1)).toEqual({
      id: 'dj_5',
      event_type: 'deep_search.completed',
      results: [deepItem],
      total_returned: 1,
    });
    expect(deepSearchFailed('dj_6', 'invalid_input').error).toEqual({ code: 'invalid_input', message: 'invalid deep-search query' });
    expect(deepSearchFailed('dj_7', 'error')).toEqual({
      id: 'dj_7',
      event_type: 'deep_search.failed',
      error: { code: 'error', message: 'deep search failed, retry' },
    });
  });

  it('builds phone events: a miss is a completion with phone null', () => {
    expect(phoneEnrichCompleted('dj_8', '+14155550100')).toEqual({ id: 'dj_8', event_type: 'phone_enrich.completed', phone: '+14155550100' });
    expect(phoneEnrichCompleted('dj_9', null)).toEqual({ id: 'dj_9', event_type: 'phone_enrich.completed', phone: null });
    expect(phoneEnrichFailed('dj_10', 'invalid_input').error).toEqual({
      code: 'invalid_input',
      message: 'invalid phone-enrichment request',
    });
    expect(phoneEnrichFailed('dj_11', 'error').error).toEqual({ code: 'error', message: 'phone enrichment failed, retry' });
  });

  it('builds agentic events, partial runs included', () => {
    const item = { full_name: 'Ada Lovelace', fit_summary: 'Runs the team', proof_points: ['Scaled to 120'], tier: 'perfect' };
    expect(
      agenticSearchCompleted('dj_12', { partial: true, completion_reason: 'budget_exhausted', total_returned: 1, results: [item] }),
    ).toEqual({
      id: 'dj_12',
      event_type: 'agentic_search.completed',
      partial: true,
      completion_reason: 'budget_exhausted',
      total_returned: 1,
      results: [item],
    });
    const failed = agenticSearchFailed('dj_13');
    expect(failed.event_type).toBe('agentic_search.failed');
    expect(failed.error.code).toBe('error');
    expect(failed.error.message).toMatch(/internal error/);
    expect(failed.error.message).toMatch(/no credits were charged/);
  });

  it('produces bodies that the event schema accepts', () => {
    const events = [
      searchCompleted('dj_1', [lead], 1),
      searchFailed('dj_2', 'error'),
      deepSearchCompleted('dj_3', [deepItem], 1),
      deepSearchFailed('dj_4', 'invalid_input'),
      phoneEnrichCompleted('dj_5', '+442071838750'),
      phoneEnrichCompleted('dj_6', null),
      phoneEnrichFailed('dj_7', 'error'),
      agenticSearchCompleted('dj_8', { partial: false, completion_reason: '', total_returned: 0, results: [] }),
      agenticSearchFailed('dj_9'),
    ];
    for (const event of events) {
      expect(webhookEventSchema.parse(JSON.parse(JSON.stringify(event)))).toEqual(event);
    }
  });

  it('has a schema that rejects malformed bodies', () => {
    expect(webhookEventSchema.safeParse({ id: 'dj_1', event_type: 'phone_enrich.completed', phone: '4155550100' }).success).toBe(false);
    expect(webhookEventSchema.safeParse({ id: 'dj_1', event_type: 'search.completed', results: [] }).success).toBe(false);
    expect(webhookEventSchema.safeParse({ id: 'dj_1', event_type: 'agentic_search.failed', error: { code: 'invalid_input', message: 'x' } }).success).toBe(false);
    expect(webhookEventSchema.safeParse({ id: 'dj_1', event_type: 'search.started' }).success).toBe(false);
  });
});
